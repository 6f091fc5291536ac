#!/usr/bin/env bash
# Builds the bench (and what it depends on) and runs it with the given arguments, e.g.
#   bench/run.sh --workload all --system all
#   bench/run.sh exec --runs 200 --sleep 30s     (exec agents; --workers, --java, --virtual-threads;
#                                                 see ExecSleepBench)
#   bench/run.sh console --instances 200000      (the console's pages; see ConsolePagesBench)
#   bench/run.sh schedules 1000000               (a million schedules on one trigger; see
#                                                 SchedulesBench; heap SCHEDULES_HEAP, default 2g)
#   bench/run.sh history --days 30 --per-day 1000000   (a month of history: the archive, the scanners
#                                                 and the API's reads at that size; see HistoryBench)
#   bench/run.sh --workload burst --n 100000 --points bench/points.tsv   (also append each run)
#   bench/run.sh lifecycle --n 100000           (PostgreSQL's cost of each step of an instance's
#                                                 life, one step at a time; see LifecycleCostBench)
#   bench/run.sh plot bench/points.tsv docs/bench-plot.svg                (draw them; see PlotMain)
# The Markdown report goes to stdout, progress to stderr. See docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
./mvnw -B -q -pl bench -am package -DskipTests -Dspotless.check.skip=true
jar="$(ls bench/target/bench-*-all.jar | head -n 1)"
mkdir -p bench/target/tmp
if [ "${1:-}" = exec ]; then
  shift
  exec java -Xmx1g -Djava.io.tmpdir="$root/bench/target/tmp" -cp "$jar" \
    dev.carillon.bench.exec.ExecSleepBench "$@"
fi
if [ "${1:-}" = console ]; then
  shift
  exec java -Xmx1g -Djava.io.tmpdir="$root/bench/target/tmp" -cp "$jar" \
    dev.carillon.bench.console.ConsolePagesBench "$@"
fi
if [ "${1:-}" = history ]; then
  shift
  exec java -Xmx1g -Djava.io.tmpdir="$root/bench/target/tmp" -cp "$jar" \
    dev.carillon.bench.history.HistoryBench "$@"
fi
if [ "${1:-}" = lifecycle ]; then
  shift
  exec java -Xmx2g -Djava.io.tmpdir="$root/bench/target/tmp" -cp "$jar" \
    dev.carillon.bench.LifecycleCostBench "$@"
fi
if [ "${1:-}" = plot ]; then
  shift
  exec java -cp "$jar" dev.carillon.bench.plot.PlotMain "$@"
fi
if [ "${1:-}" = schedules ]; then
  shift
  exec java -Xmx"${SCHEDULES_HEAP:-2g}" -Djava.io.tmpdir="$root/bench/target/tmp" -cp "$jar" \
    dev.carillon.bench.SchedulesBench "$@"
fi
# A fixed heap so that GC behaves the same from run to run; the dev stack's files go under target/.
# BENCH_JAVA_OPTS: more JVM options, e.g. -Dcarillon.bench.fires-file=F (a steady run's fires, one a line).
exec java -Xms2g -Xmx2g -Djava.io.tmpdir="$root/bench/target/tmp" ${BENCH_JAVA_OPTS:-} -jar "$jar" "$@"
