#!/usr/bin/env sh
# The full fault-injection run: the reduced suite's faults repeated in cycles of 100 s (a 30 min
# run has 18 cycles, so every fault kind at least 3 times, most 18), plus a worker kill every 20 s.
# Partitions need root and iproute2 (network namespaces); without them the run says it skipped
# them, unless CARILLON_FAULTS_REQUIRE_NETNS is set, which makes that a failure.
# Not part of the README's test command (which runs the reduced 100 s version, one cycle).
# Usage: faults/run-full.sh [DURATION]   e.g. faults/run-full.sh 30m
# The summary (with the services' memory high-water marks) is printed and kept in
# faults/target/run-<timestamp>/summary.txt.
set -eu
cd "$(dirname "$0")/.."
exec ./mvnw -B -pl faults -am verify \
  -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dfaults.duration="${1:-30m}"
