#!/usr/bin/env sh
# The full fault-injection run (issue 7): a 5-minute workload with a worker kill every ~20 s,
# two trigger-leader kills, a retry-leader kill, a Kafka and a PostgreSQL restart and a frozen
# worker. Not part of the README's test command (which runs the reduced 100 s version).
# Usage: faults/run-full.sh [DURATION]   e.g. faults/run-full.sh 10m
# The summary is printed and kept in faults/target/run-<timestamp>/summary.txt.
set -eu
cd "$(dirname "$0")/.."
exec ./mvnw -B -pl faults -am verify \
  -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dfaults.duration="${1:-5m}"
