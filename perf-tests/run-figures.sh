#!/usr/bin/env bash
# Rebuilds perf-tests/target/benchmarks.jar and reruns every figure of perf-tests/README.md
# into one results folder, on the JDK of $JAVA_HOME (or the java on the PATH):
#
#   JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 perf-tests/run-figures.sh
#
#   1. Scaling, pipe and TCP, 100 .. 100,000 sessions, every mode (rows past a machine limit
#      say which limit; TCP at 100,000 needs ulimit -n above 100,000)
#   2. HeapPerSession, one kind per JVM (clean figures), depth 3; depths 1 and 10 for the
#      continuation and virtual-thread kinds
#   3. SeedExperiment: the pipe and TCP with no server delay, the pipe with a 1 ms delay, TCP
#      with the 1 ms spin before suspending
#   4. JMH microbenchmarks (JSON beside the text)
#   5. The peers: every Weft mode, plain virtual threads on java.net.Socket, a Netty callback
#      client and redis-benchmark against a redis-server it starts, N = 100, 1,000, 10,000,
#      3 interleaved rounds (into $OUT/peers/; needs redis-server and redis-benchmark); then the
#      keep-alive workload, one connection per session, N = 1, 100, 10,000 (into $OUT/peers-keepalive/)
#
# Bounded: about 20 minutes on a quiet 2-core machine; each step has a time limit and a step that fails is
# reported at the end without stopping the others. Run it on a quiet machine: every figure is a
# wall-clock time, and other processes on the same cores change them (the load average is
# written into environment.txt and scaling.json).
#
# Environment:
#   OUT=dir        results folder (default perf-tests/results)
#   QUICK=1        a small-scale smoke run of every step (a few seconds each), to check that
#                  everything runs; its figures mean nothing. Use with OUT=/tmp/somewhere.
#   SKIP_BUILD=1   use the benchmarks.jar already built
#   STEPS="..."    which of the numbered steps to run, by name: scaling heap seed jmh peers
#                  (default all five)
set -uo pipefail

cd "$(dirname "$0")/.."
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
OUT="${OUT:-perf-tests/results}"
QUICK="${QUICK:-0}"
JAR=perf-tests/target/benchmarks.jar
FAILED=()
STEPS="${STEPS:-scaling heap seed jmh peers}"
for s in $STEPS; do
  case "$s" in scaling|heap|seed|jmh|peers) ;; *) echo "STEPS: no step named $s" >&2; exit 2 ;; esac
done
# wants NAME: true when step NAME is in $STEPS.
wants() {
  case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  echo "== building $JAR (JAVA_HOME=${JAVA_HOME:-default})"
  ./mvnw -q -pl perf-tests -am -DskipTests -Pbenchmarks package || { echo "build failed"; exit 1; }
fi
mkdir -p "$OUT"
FEATURE=$("$JAVA" -XshowSettings:properties -version 2>&1 \
  | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "java: $JAVA"
  "$JAVA" -version 2>&1
  echo "cores: $(nproc 2>/dev/null || echo unknown)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
  echo "open-file limit: $(ulimit -n)"
  echo "quick: $QUICK"
} > "$OUT/environment.txt"
cat "$OUT/environment.txt"

# step NAME LIMIT COMMAND...: runs COMMAND under a time limit, output to the terminal and
# $OUT/NAME.txt; a failure is remembered, not fatal.
step() {
  local name=$1 limit=$2
  shift 2
  echo
  echo "== $name ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null))"
  if ! timeout "$limit" "$@" 2>&1 | tee "$OUT/$name.txt"; then
    FAILED+=("$name")
  fi
}

if [ "$QUICK" = 1 ]; then
  SESSIONS=100,1000
  HEAP_SESSIONS=(--sessions 1000 --platform-sessions 500)
  SEED_CONNECTIONS=100
  SEED_DELAY_CONNECTIONS=20
  JMH_OPTS=(-wi 1 -i 1 -w 200ms -r 200ms -f 1)
  PEERS_OPTS=(--sessions 100,1000 --rounds 1 --round-trips 20000 --warmup-round-trips 4000)
  KEEPALIVE_OPTS=(--sessions 1,100 --rounds 1 --keepalive-max-round-trips 20000 --warmup-round-trips 4000)
else
  SESSIONS=100,1000,10000,100000
  HEAP_SESSIONS=()
  SEED_CONNECTIONS=1000
  SEED_DELAY_CONNECTIONS=100
  JMH_OPTS=()
  PEERS_OPTS=(--sessions 100,1000,10000 --rounds 3)
  KEEPALIVE_OPTS=(--sessions 1,100,10000 --rounds 3)
fi

# 1. Scaling: one JVM, both transports, every mode; writes scaling.{csv,json,txt} and charts
#    (scaling-log.txt: everything it printed).
if wants scaling; then
step scaling-log 30m "$JAVA" -cp "$JAR" io.weft.perf.scaling.Scaling \
  --sessions "$SESSIONS" --transports pipe,tcp --out "$OUT"
fi

# 2. Heap per waiting session, one kind per JVM.
if wants heap; then
: > "$OUT/heap.txt.tmp"
for kind in THREADS VIRTUAL_THREADS CONTINUATIONS RUNNER_VIRTUAL_THREADS CONTINUATIONS_PIPE \
    VIRTUAL_THREADS_PIPE; do
  step "heap-$kind" 5m "$JAVA" -cp "$JAR" io.weft.perf.heap.HeapPerSession --kind "$kind" \
    "${HEAP_SESSIONS[@]}"
  cat "$OUT/heap-$kind.txt" >> "$OUT/heap.txt.tmp"
  rm -f "$OUT/heap-$kind.txt"
done
for depth in 1 10; do
  for kind in VIRTUAL_THREADS CONTINUATIONS; do
    step "heap-$kind-depth$depth" 5m "$JAVA" -cp "$JAR" io.weft.perf.heap.HeapPerSession \
      --kind "$kind" --depth "$depth" "${HEAP_SESSIONS[@]}"
    cat "$OUT/heap-$kind-depth$depth.txt" >> "$OUT/heap.txt.tmp"
    rm -f "$OUT/heap-$kind-depth$depth.txt"
  done
done
mv "$OUT/heap.txt.tmp" "$OUT/heap.txt"
fi

# 3. The 2008 experiment and its variants.
if wants seed; then
step seed-pipe 5m "$JAVA" -cp "$JAR" io.weft.perf.SeedExperiment \
  --transport=vmpipe --connections="$SEED_CONNECTIONS"
step seed-tcp 5m "$JAVA" -cp "$JAR" io.weft.perf.SeedExperiment \
  --transport=tcp --connections="$SEED_CONNECTIONS"
step seed-pipe-delay1ms 5m "$JAVA" -cp "$JAR" io.weft.perf.SeedExperiment \
  --transport=vmpipe --delay-ms=1 --connections="$SEED_DELAY_CONNECTIONS"
# The 2008 knob: wait (spin) up to 1 ms before suspending.
step seed-tcp-spin1ms 5m "$JAVA" -cp "$JAR" io.weft.perf.SeedExperiment \
  --transport=tcp --spin-us=1000 --connections="$SEED_CONNECTIONS"
fi

# 4. JMH microbenchmarks.
if wants jmh; then
step "jmh-jdk$FEATURE" 20m "$JAVA" -jar "$JAR" "${JMH_OPTS[@]}" \
  -rf json -rff "$OUT/jmh-jdk$FEATURE.json"
fi

# 5. The peers (its own load averages per round are in peers.md and peers.json).
#    JDK 22+: context switches from getrusage through the Foreign Function API, without its warning.
PEERS_JVM=()
if [ "${FEATURE:-0}" -ge 22 ] 2>/dev/null; then
  PEERS_JVM=(--enable-native-access=ALL-UNNAMED)
fi
if wants peers; then
step peers-log 40m "$JAVA" "${PEERS_JVM[@]}" -cp "$JAR" io.weft.perf.peers.PeersBenchmark "${PEERS_OPTS[@]}" \
  --out "$OUT/peers"
step peers-keepalive-log 40m "$JAVA" "${PEERS_JVM[@]}" -cp "$JAR" io.weft.perf.peers.PeersBenchmark \
  --workload keepalive "${KEEPALIVE_OPTS[@]}" --out "$OUT/peers-keepalive"
fi

echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" | tee -a "$OUT/environment.txt"
if [ ${#FAILED[@]} -gt 0 ]; then
  echo "FAILED steps: ${FAILED[*]} (their output is in $OUT)"
  exit 1
fi
echo "all figures in $OUT"
