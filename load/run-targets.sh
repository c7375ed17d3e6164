#!/usr/bin/env bash
# The weft-load targets, each printed MET or MISSED with its figure. The speed rows run weft-load and
# the C tool in turn for each row (interleaved, same server, same run), and give two figures apart:
#   whole run:    a run of the length a user of the C tool runs by default, with no warm-up: http
#                 WHOLE seconds (default 10, wrk's default -d), Redis redis-benchmark's default
#                 100,000 requests (at least 20 per connection). What each tool's rate includes:
#                 - wrk takes its start time before its threads connect: its rate includes its
#                   connects. weft-load's http figure is its measured window, its clock's start
#                   (just before the first connect) to its last reply, the connect ramp and a cold
#                   JIT included: the same span.
#                 - redis-benchmark makes all its clients first (65 at a time, 50 ms apart: ~1,300
#                   connects/s, 0.75 s at N = 1,000, 7.7 s at 10,000) and starts its clock after
#                   that: its rate excludes its connects. weft-load's Redis whole-run figure
#                   therefore starts at its first request, taken as its clock's start plus its
#                   fastest connect (no request comes before it, so the figure errs low); its
#                   users still connect while the first ones send (its ramp, 0.5 s at 10,000 at
#                   20,000 connects/s, stays in), and its JIT is cold. Its figure over its whole
#                   window, connects included, is printed beside the verdict.
#                 JVM start and the rewrite, before the window, are printed apart.
#                 Class-data archives: the launcher uses one when asked (WEFT_LOAD_ARCHIVE: the first
#                 run of a scenario trains it as it exits, later runs start from it; docs/load.md),
#                 and this script asks, so each whole row runs weft-load twice after the C tool, both
#                 printed with a verdict:
#                 "first run", with an empty archive directory of the row's own ($OUT/archive-ROW:
#                 never the user's cache), which trains the archive, as a user's first run does, and
#                 "with archive", starting from it. The row's steady run, the calibration and the
#                 line row use an archive too (the row's, else one of their own, trained by their first
#                 run). WEFT_LOAD_ARCHIVE=off (or empty) in the environment: no archive anywhere, one
#                 whole run per row;
#   steady state: both tools run WARM + DUR seconds (default 20 + 5), the same rule for both, and
#                 the verdict compares what the SERVER counted in each tool's last DUR seconds of
#                 traffic: nginx's stub_status requests, Redis's INFO total_commands_processed,
#                 read every 0.25 s beside each run over one kept connection (the reads' own
#                 requests taken out, each read stamped as its reply arrives); the span ends at the
#                 last read before the tool's traffic stopped (within one read, 0.25 s, of its
#                 end; a trickle of late requests after it does not count as traffic), so it holds
#                 neither tool's connect ramp nor its end; the slowest read and the trickle after
#                 the span are printed beside it. Each tool's own figure is printed
#                 beside it: weft-load's is its measured window (--warmup WARM, its last DUR s),
#                 wrk's its whole run (its connect ramp included), redis-benchmark's its whole run
#                 after its connects (as above). Each row also prints the kernel's listen-queue
#                 overflows (TcpExtListenOverflows, system-wide) during each tool's run. WARM is long
#                 enough for the JIT's C2 compiles of the hot path to have landed (they landed 8-18 s
#                 into a run on 2 cores); each steady row says whether
#                 its window was settled: the JIT's compiler threads under 0.1 core over the window,
#                 and the window's second half at most 10% faster than its first.
#   1. weft-load redis >= 0.8x redis-benchmark's GET/s at N = 100, 1,000, 10,000 connections, no
#      pipelining, same redis-server;
#   2. weft-load http >= 0.8x wrk's requests/s against nginx at N = 100, 1,000, 10,000 connections,
#      keep-alive, and with Connection: close (a new connection per request; wrk -H 'Connection: close');
#   3. 100,000 concurrent line users in continuations(1) within 1 GB of heap, summary and report made;
#   4. recording one timed operation <= 100 ns (JMH, RecordingBenchmark).
# Run it alone on a quiet machine: ./load/run-targets.sh [--smoke]   (about 14 minutes at full size: each whole row runs weft-load twice)
# --smoke runs every step tiny (N = 10/20, 1,000 users, short JMH), to check the script works.
# WEFT_LOAD_MODE (default continuations:2, one event loop per core of a 2-core machine, as wrk -t 2),
# WEFT_TARGETS (default "redis http line jmh"), DUR (seconds of each steady window, default 5), WARM
# (seconds of warm-up before it, default 20), WHOLE (seconds of an http whole run, default 10) and
# WEFT_JAVA_OPTS (JVM options of the weft-load runs, which all run through the launcher load/weft-load;
# unset: WEFT_LOAD_JAVA_OPTS if that is set, else none, the JVM's defaults; "-Xms1g -XX:+AlwaysPreTouch"
# commits and touches the heap before the run (without it, G1 grows the heap through the window, and
# the event loops spent 15% of their samples
# in page faults on allocation, http N = 1,000). The 100,000-user row adds -Xmx1g through
# JDK_JAVA_OPTIONS, ahead of these options: an -Xmx among them overrides its 1 GB.
# WEFT_LOAD_ARCHIVE: off (or empty) for no class-data archive in any run (above); any other value
# is not used: the script's runs keep their archives in $OUT.
set -euo pipefail
cd "$(dirname "$0")/.."

SMOKE=0
[ "${1:-}" = "--smoke" ] && SMOKE=1
MODE="${WEFT_LOAD_MODE:-continuations:2}"
TARGETS="${WEFT_TARGETS:-redis http line jmh}"
DUR="${DUR:-5}"
WARM="${WARM:-20}"
WHOLE="${WHOLE:-10}"
# Smoke sizes set here, before the lines below print DUR.
if [ $SMOKE = 1 ]; then NS="10 20"; DUR=2; WARM=1; WHOLE=2; WHOLEN=200; else NS="100 1000 10000"; WHOLEN=100000; fi
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
if [ -n "${WEFT_JAVA_OPTS+set}" ]; then export WEFT_LOAD_JAVA_OPTS="$WEFT_JAVA_OPTS"; fi
OUT="$(mktemp -d /tmp/weft-load-targets.XXXXXX)"
# ARCHIVES=1: the launcher's default class-data archives, each run's in a directory under $OUT.
if [ -n "${WEFT_LOAD_ARCHIVE+set}" ] && { [ -z "$WEFT_LOAD_ARCHIVE" ] || [ "$WEFT_LOAD_ARCHIVE" = off ]; }; then ARCHIVES=0; else ARCHIVES=1; fi
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "$(date -u '+%Y-%m-%d %H:%M:%S UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown); fd limit $(ulimit -n); output in $OUT; mode $MODE; $("$JAVA" -version 2>&1 | head -n1); JVM options: $(if [ -z "${WEFT_LOAD_JAVA_OPTS+set}" ]; then echo "none (the launcher's default)"; elif [ -z "$WEFT_LOAD_JAVA_OPTS" ]; then echo none; else echo "$WEFT_LOAD_JAVA_OPTS"; fi)"
if [ $ARCHIVES = 1 ]; then
  echo "class-data archives (WEFT_LOAD_ARCHIVE; the launcher's default is none): each whole row runs weft-load twice, its first run with an empty archive directory (it trains the archive as it exits, as a first run with WEFT_LOAD_ARCHIVE does) and then with that archive; the steady, calibration and line runs start from their row's archive (or train their own); all in $OUT/archive-*"
else
  echo "class-data archives: none (WEFT_LOAD_ARCHIVE=off): one whole run per row, with no archive"
fi
echo "weft-load connects: paced 20,000/s in bursts of 1,000, connect window OFF (--connect-window 0, not the default 32): the servers listen with backlog $(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo 4096), which the pacing keeps whole, and the C tools have no window; with the default window a place comes back only with a user's first reply, which held 10,000 users to ~2,350 connections after 20 s"
echo "rates: whole runs are each tool's own figure: wrk's includes its connects, redis-benchmark's does not (its clock starts after all its clients are made); weft-load's Redis whole run counts from its first request, its http whole run from its first connect. Steady rows are judged on the server's own count over each tool's last ${DUR} s of traffic, ending within one read (0.25 s) of its end (nginx stub_status / Redis total_commands_processed, read over one kept connection), each tool's own figure beside it"

./mvnw -B -q -pl load -am -DskipTests package
JAR=load/target/weft-load.jar
export WEFT_LOAD_JAR="$PWD/$JAR"

need() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || { echo "missing $1 (apt-get install -y $2)" >&2; exit 2; }; }
need redis-server redis-server
need redis-benchmark redis-tools
need nginx nginx-light
need wrk wrk

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
# rate DIR OP: operation OP's completions per second in a weft-load run, from its JSON summary (the
# summary's total count also holds the users' connects, timed as the operation "connect").
rate() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1]+"/summary.json")); print("%.0f" % (s["operations"][sys.argv[2]]["count"]/s["seconds"]))' "$1" "$2"; }
# fromfirst DIR OP: OP's rate from weft-load's first request: its window less its fastest connect (the
# window starts just before the first connect and every request follows a finished connect, so the
# first request is no earlier: the figure errs low). For redis-benchmark, whose rate excludes connects.
fromfirst() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1]+"/summary.json")); o=s["operations"]; print("%.0f" % (o[sys.argv[2]]["count"]/(s["seconds"]-o["connect"]["latencyNanos"]["min"]/1e9)))' "$1" "$2"; }
verdict() { # name ours theirs [note]
  python3 -c 'import sys; n,o,t=sys.argv[1],float(sys.argv[2]),float(sys.argv[3]); r=o/t if t else 0; print("%-48s %s  weft-load %.0f/s, peer %.0f/s, %.2fx (>= 0.8x)%s" % (n, "MET   " if r>=0.8 else "MISSED", o, t, r, "; " + sys.argv[4] if len(sys.argv) > 4 else ""))' "$@"
}
RESULTS=()
STARTS=()
# Each whole row's weft-load runs: the first run (it trains the row's archive) and one with it; one
# without archives.
ARCH=
if [ $ARCHIVES = 1 ]; then WHOLERUNS="-first -archived"; else WHOLERUNS="-first"; fi
SPLITS=()
# The servers, the running weft-load (its timeout's pid: timeout passes the signal on) and its sampler,
# stopped by pid on exit and on Ctrl-C or TERM: weft-load and the sampler run in the background, where
# bash starts them with SIGINT ignored, so Ctrl-C alone would leave them running.
RPID=; NPID=; WPID=; SPID=; CPID=; XPID=
cleanup() { for p in $WPID $SPID $CPID $XPID $RPID $NPID; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
want() { case " $TARGETS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
BACKLOG="$(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo 4096)"
# Every child has a timeout (timeout -k: KILL 10 s after TERM), generous for its run: a weft-load
# or C-tool run of WARM + DUR s (or WHOLE s, or 100,000-200,000 Redis requests, a few seconds)
# gets 300 s beyond its length (the 100,000-user line row 900 s); a hung child then ends the script
# (set -e: its figure is missing) instead of holding it.
TMO=$(( WARM + DUR + WHOLE + 300 ))
# weft NAME ARGS...: one weft-load run into $OUT/NAME, its process's wall time kept for startup(), and
# its JIT compiler threads' CPU sampled every 0.25 s into $OUT/NAME.jit for settled(). Connects are
# paced at 20,000/s in bursts of 1,000, and the connect window is off (--connect-window 0): both
# servers listen with the deepest backlog the kernel allows, which the pacing keeps whole, and the C
# tools open their connections at once. With the default window of 32, HTTP and Redis (the client
# speaks first) give a place back only with a user's first reply, which queues behind the connected
# users' traffic: 10,000 users had ~2,350 connections after 20 s (2026-11-27, loaded machine).
weft() {
  local name="$1"; shift
  local t0 pid; t0="$(date +%s%3N)"
  # The run's class-data archive directory: ARCH (the row's), else one of the run's own.
  if [ $ARCHIVES = 1 ]; then export WEFT_LOAD_ARCHIVE="$OUT/archive-${ARCH:-$name}"; else export WEFT_LOAD_ARCHIVE=off; fi
  # Whether this run started from an archive or trained one (its directory had none before it).
  local state="first run" f
  for f in "$WEFT_LOAD_ARCHIVE"/*.aot "$WEFT_LOAD_ARCHIVE"/*.jsa; do if [ -f "$f" ]; then state="with archive"; fi; done
  if [ $ARCHIVES = 0 ]; then state=none; fi
  echo "$state" > "$OUT/$name.archive"
  timeout -k 10 "$TMO" load/weft-load "$@" --mode "$MODE" --connect-rate 20000 --connect-burst 1000 --connect-window 0 -q -o "$OUT/$name" > "$OUT/$name.txt" 2>&1 &
  WPID=$!; pid=$WPID
  python3 -c "$JITSAMPLER" "$pid" "$OUT/$name.jit" &
  SPID=$!
  srvsample "$pid" "$OUT/$name.srv"
  wait "$pid" || true
  # The wall time taken as the JVM ends, not after the sampler's last 0.25 s sleep.
  echo $(( $(date +%s%3N) - t0 )) > "$OUT/$name.wallms"
  WPID=
  wait "$SPID" || true
  SPID=
  srvdone
}
# ctool NAME CMD...: a C tool's run (under the timeout), its output into $OUT/NAME.out, the server's
# counter sampled beside it like weft-load's (srvsample).
ctool() {
  local name="$1"; shift
  timeout -k 10 "$TMO" "$@" > "$OUT/$name.out" 2>/dev/null &
  CPID=$!
  srvsample "$CPID" "$OUT/$name.srv"
  wait "$CPID" || true
  CPID=
  srvdone
}
# SRV ("nginx PORT" or "redis PORT"; empty for none): the server whose own counter srvsample reads
# beside the runs of a steady row. srvsample PID FILE starts the sampler (every 0.25 s until PID
# ends, then once more: the time, the server's count of requests or commands, and the kernel's
# TcpExtListenOverflows); srvdone waits for it.
SRV=
srvsample() { if [ -n "$SRV" ]; then python3 -c "$SRVSAMPLER" $SRV "$1" "$2" & XPID=$!; fi; }
srvdone() { if [ -n "$XPID" ]; then wait "$XPID" || true; XPID=; fi; }
SRVSAMPLER='
import os, socket, sys, time
kind, port, pid, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
# One connection kept to the server (made again only after a failure), so that a read does not
# queue in the listen backlog the tool under test fills: a dropped SYN would delay it 1 s or 3 s.
conn = None
def connect():
    global conn
    if conn is None:
        conn = socket.create_connection(("127.0.0.1", port), 5).makefile("rwb")
    return conn
def count():
    c = connect()
    if kind == "nginx":
        # HTTP/1.1 keep-alive (the nginx of this script keeps a connection for 100,000,000 requests);
        # each read is a request, counted by nginx too.
        c.write(b"GET /weft-status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); c.flush()
        length = None
        while True:
            line = c.readline()
            if not line:
                raise OSError("closed")
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        if length is None:
            raise OSError("no Content-Length")
        body = c.read(length)
        return int(body.decode().splitlines()[2].split()[2])
    # Redis: INFO is a command too, counted by Redis.
    c.write(b"INFO stats\r\n"); c.flush()
    n = int(c.readline()[1:])
    for line in c.read(n + 2).decode().splitlines():
        if line.startswith("total_commands_processed:"):
            return int(line.split(":")[1])
    raise OSError("no total_commands_processed")
def overflows():
    try:
        rows = [l.split() for l in open("/proc/net/netstat") if l.startswith("TcpExt:")]
        return int(rows[1][rows[0].index("ListenOverflows")])
    except (OSError, ValueError, IndexError):
        return -1
def sample(f):
    global conn
    try:
        # Stamped as the reply arrives (the server counted the read just before it answered); the
        # time the read took (a connect included, when one was made again) in ms beside it.
        t0 = time.time(); c = count(); t1 = time.time()
        f.write("%.3f %d %d %.1f\n" % (t1, c, overflows(), (t1 - t0) * 1000)); f.flush()
    except (OSError, ValueError, IndexError):
        if conn is not None:
            try:
                conn.close()
            except OSError:
                pass
        conn = None
with open(out, "w") as f:
    # A read every 0.25 s on a fixed beat (a slow read delays the next, not all after it).
    tick = time.time()
    while os.path.exists("/proc/%d" % pid):
        sample(f)
        tick = max(tick + 0.25, time.time())
        time.sleep(max(0.0, tick - time.time()))
    sample(f)
'
# srvrate FILE: from srvsample's FILE, the server's count per second over the tool's last DUR s of
# traffic ("RATE SPAN OVERFLOWS SLOWEST SLOW TAIL"). The span ends at the start of the last interval
# between reads in which the count rose at least a quarter of the run's median rate (so inside the
# traffic, within one interval, about 0.25 s, of its end: a late request or two after the traffic
# stopped, say an iteration finishing after a SYN retry, does not move the end into the dead time
# before it), starts at the read nearest DUR s before it (or the first), and the reads' own requests
# are taken out. OVERFLOWS: the listen-queue overflows over the whole run; SLOWEST: the slowest
# read in the span, ms (its stamp is its reply's arrival, so a slow read moves no stamp, but the
# count it read may have been taken that much earlier); SLOW: the span's reads over 50 ms; TAIL:
# seconds from the span's end to the last rise of the count at all (requests trickling in after
# the traffic; a tail over 2 intervals is worth a look). "? ? ? ? ? ?" without two reads in the traffic.
srvrate() {
  python3 -c '
import sys
pts = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 4]
dur = float(sys.argv[2])
# The rate in each interval between reads, the request of the read ending it taken out.
rates = [((pts[i][1] - pts[i - 1][1] - 1) / (pts[i][0] - pts[i - 1][0]), i) for i in range(1, len(pts)) if pts[i][0] > pts[i - 1][0]]
rising = sorted(r for r, i in rates if r > 0)
if not rising:
    print("? ? ? ? ? ?"); sys.exit(0)
median = rising[len(rising) // 2]
full = [i for r, i in rates if r >= median / 4]
if not full or full[-1] - 1 < 1:
    print("? ? ? ? ? ?"); sys.exit(0)
e = full[-1] - 1
s = min(range(0, e), key=lambda i: abs(pts[i][0] - (pts[e][0] - dur)))
span = pts[e][0] - pts[s][0]
ov = pts[-1][2] - pts[0][2] if pts[0][2] >= 0 and pts[-1][2] >= 0 else -1
reads = [p[3] for p in pts[s:e + 1]]
last = max(i for r, i in rates if r > 0)
print("%.0f %.2f %d %.0f %d %.2f" % ((pts[e][1] - pts[s][1] - (e - s)) / span, span, ov, max(reads), sum(1 for x in reads if x > 50), pts[last][0] - pts[e][0]))
' "$1" "$DUR" 2>/dev/null || echo "? ? ? ? ? ?"
}
# steadyrow NAME WEFTDIR CTOOLNAME TOOL OP THEIRS: the verdict of a steady row on the server's counts
# (weft-load's run in WEFTDIR, the C tool TOOL's in $OUT/CTOOLNAME), with each tool's own figure
# (weft-load's operation OP over its window, the C tool's THEIRS), the spans, the overflows and
# settled() beside it.
steadyrow() {
  local name="$1" wd="$2" cn="$3" tool="$4" ownw ownc w c
  ownw="$(rate "$wd" "$5")"; ownc="$6"
  read -r -a w <<< "$(srvrate "$wd.srv")"
  read -r -a c <<< "$(srvrate "$OUT/$cn.srv")"
  if [ "${w[0]}" != "?" ] && [ "${c[0]}" != "?" ]; then
    verdict "$name" "${w[0]}" "${c[0]}" "server-counted over the last ${w[1]} s / ${c[1]} s of each one's traffic; own figures: weft-load $ownw/s (its window), $tool ${ownc%.*}/s (its whole run); listen overflows ${w[2]} / ${c[2]}; slowest server read ${w[3]} / ${c[3]} ms (${w[4]} / ${c[4]} over 50 ms); trickle after the span ${w[5]} / ${c[5]} s; $(settled "$wd")"
  else
    verdict "$name" "$ownw" "$ownc" "NO SERVER COUNT (${SRV:-none}), own figures: weft-load its window, $tool its whole run; $(settled "$wd")"
  fi
}
# The sampler, given timeout's pid: the java process below it (the launcher execs java, or, training a
# class-data archive, runs it as its child); every 0.25 s, the time and the ticks (10 ms) of
# utime+stime of the JVM's C1/C2 compiler threads.
JITSAMPLER='
import os, sys, time
launcher, out = int(sys.argv[1]), sys.argv[2]
def ticks(p):
    s = 0
    for t in os.listdir("/proc/%d/task" % p):
        try:
            if open("/proc/%d/task/%s/comm" % (p, t)).read().startswith(("C1 Comp", "C2 Comp")):
                f = open("/proc/%d/task/%s/stat" % (p, t)).read().rsplit(")", 1)[1].split()
                s += int(f[11]) + int(f[12])
        except OSError:
            pass
    return s
def jvm():
    level = [launcher]
    for _ in range(4):  # timeout -> (launcher ->) java
        below = []
        for p in level:
            if open("/proc/%d/comm" % p).read().strip() == "java":
                return p
            for t in os.listdir("/proc/%d/task" % p):
                below += [int(c) for c in open("/proc/%d/task/%s/children" % (p, t)).read().split()]
        level = below
    return None
with open(out, "w") as f:
    while os.path.exists("/proc/%d" % launcher):
        try:
            p = jvm()
            if p:
                f.write("%.3f %d\n" % (time.time(), ticks(p))); f.flush()
        except OSError:
            pass
        time.sleep(0.25)
'
# settled DIR: whether a steady window was settled: the JIT's compiler threads' CPU over the window
# (the window taken as the last `seconds` before intervals.hlog was last written: weft-load closes it
# as the window ends, while summary.json comes 0.2-0.5 s later, after the report code, whose compiles
# must not count) and the rate of the window's second half over its first (the per-second
# timeline's whole intervals in it).
settled() {
  python3 -c '
import json, os, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
end = os.stat(d + "/intervals.hlog").st_mtime; start = end - s["seconds"]
pts = [tuple(map(float, l.split())) for l in open(d + ".jit") if len(l.split()) == 2]
inside = [p for p in pts if start <= p[0] <= end]
jit = (inside[-1][1] - inside[0][1]) / 100.0 / (inside[-1][0] - inside[0][0]) if len(inside) > 1 and inside[-1][0] > inside[0][0] else None
# The timeline holds intervals from the start of the run (none counted in the warm-up): those wholly in the window.
t = s["timeline"]; wend = t[-1]["start"] + t[-1]["seconds"] if t else 0
tl = [i for i in t if i["start"] >= wend - s["seconds"] - 0.01 and i["seconds"] > 0.5]
h = len(tl) // 2
rate = lambda xs: sum(i["count"] for i in xs) / sum(i["seconds"] for i in xs)
rise = rate(tl[h:]) / rate(tl[:h]) if h and rate(tl[:h]) > 0 else None
ok = jit is not None and jit < 0.1 and rise is not None and rise <= 1.10
print("%s (JIT %s cores in the window, its second half %s of the first)" % ("settled" if ok else "NOT SETTLED",
      "%.2f" % jit if jit is not None else "?", "%.2fx" % rise if rise is not None else "?"))
' "$1" 2>/dev/null || echo "settled: ?"
}
# startup LABEL DIR: the process's wall time outside the measured window (JVM start, class loading,
# the rewrite, the reports written at the end and, for a run that trains an archive, its making),
# printed apart from the figures, with the run's archive state.
startup() {
  python3 -c 'import json,sys; s=json.load(open(sys.argv[2]+"/summary.json")); w=int(open(sys.argv[2]+".wallms").read())/1000.0; print("%-44s %.2f s of %.2f s outside the measured window (%s)" % (sys.argv[1], w-s["seconds"], w, open(sys.argv[2]+".archive").read().strip()))' "$1" "$2"
}
# split LABEL DIR OP: the operation's latency, server time and client's own time (p50 / p99).
split() {
  python3 -c '
import json,sys
s=json.load(open(sys.argv[2]+"/summary.json")); o=s["operations"][sys.argv[3]]
f=lambda k: "%7.1f / %7.1f us" % (o[k]["p50"]/1e3, o[k]["p99"]/1e3) if k in o else "-"
print("%-44s latency %s   server %s   client %s" % (sys.argv[1], f("latencyNanos"), f("serverNanos"), f("clientNanos")))
' "$1" "$2" "$3"
}
redisbench() { # PORT N REQUESTS: redis-benchmark's GET/s
  timeout -k 10 "$TMO" redis-benchmark -p "$1" -c "$2" -n "$3" -t get -q 2>/dev/null | tr '\r' '\n' \
    | sed -n 's/.*GET: \([0-9.]*\) requests per second.*/\1/p' | tail -n1
}

# ---- 1. redis
if want redis; then
RPORT="$(free_port)"
# The accept queue as deep as the kernel allows: at the default 511 a burst of 10,000 connects
# drops SYNs, and each dropped one waits a 1 s retransmit, in both drivers' figures.
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --maxclients 30000 --daemonize no \
  --tcp-backlog "$BACKLOG" \
  --logfile "$OUT/redis.log" &
RPID=$!
for _ in $(seq 50); do redis-cli -p "$RPORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
redis-cli -p "$RPORT" set key value >/dev/null
# Calibration: one user sending PING, which Redis answers at once: the client's own time is the
# driver's overhead per operation (wrk2 reports its calibration apart the same way).
weft "redis-calibration" redis -t "127.0.0.1:$RPORT" -u 1 --warmup "${WARM}s" -d "${DUR}s" -c 'PING'
SPLITS+=("$(split "calibration: redis PING, 1 user" "$OUT/redis-calibration" PING)")
for N in $NS; do
  # Whole run: redis-benchmark's default 100,000 requests (at least 20 per connection). Its rate
  # leaves out its connects (its clock starts once all its clients are made), so weft-load's figure
  # here starts at its first request (fromfirst); its whole window, connects included, beside it.
  PER=$(( WHOLEN / N > 20 ? WHOLEN / N : 20 ))
  THEIRS="$(redisbench "$RPORT" "$N" $((PER * N)))"
  ARCH="redis-$N"
  for RUN in $WHOLERUNS; do
    weft "redis-$N-whole$RUN" redis -t "127.0.0.1:$RPORT" -u "$N" -n "$PER" -c 'GET key'
    RESULTS+=("$(verdict "redis GET, N=$N, $PER req/conn, whole, $(cat "$OUT/redis-$N-whole$RUN.archive")" "$(fromfirst "$OUT/redis-$N-whole$RUN" GET)" "$THEIRS" \
      "weft-load from its first request, as redis-benchmark starts after its connects; with its connects $(rate "$OUT/redis-$N-whole$RUN" GET)/s")")
    STARTS+=("$(startup "redis N=$N" "$OUT/redis-$N-whole$RUN")")
  done
  # Steady state: weft-load's last DUR s after a WARM s warm-up; redis-benchmark for about as many
  # requests as weft-load's warm-up and window held (WARM + DUR s; its figure leaves out its
  # connects, as weft-load's window, after the warm-up, holds none).
  SRV="redis $RPORT"
  weft "redis-$N-steady" redis -t "127.0.0.1:$RPORT" -u "$N" --warmup "${WARM}s" -d "${DUR}s" -c 'GET key'
  ARCH=
  OURS="$(rate "$OUT/redis-$N-steady" GET)"
  ctool "redisbench-$N-steady" redis-benchmark -p "$RPORT" -c "$N" -n "$(python3 -c "import sys; print(max(int(float(sys.argv[1])*($WARM + $DUR)), 20*$N))" "$OURS")" -t get -q
  SRV=
  THEIRS="$(tr '\r' '\n' < "$OUT/redisbench-$N-steady.out" | sed -n 's/.*GET: \([0-9.]*\) requests per second.*/\1/p' | tail -n1)"
  RESULTS+=("$(steadyrow "redis GET, N=$N, steady state" "$OUT/redis-$N-steady" "redisbench-$N-steady" redis-benchmark GET "$THEIRS")")
  SPLITS+=("$(split "redis GET, N=$N, steady state" "$OUT/redis-$N-steady" GET)")
done
kill "$RPID" 2>/dev/null || true; RPID=
fi

# ---- 2. http
# Whether this nginx has stub_status (the steady rows' server counts; without it they are judged on
# each tool's own figure, and say so).
nginx_status() { "$(command -v nginx || echo /usr/sbin/nginx)" -V 2>&1 | grep -q http_stub_status_module; }
if want http; then
NSRV=; if nginx_status; then NSRV="nginx"; fi
NPORT="$(free_port)"
mkdir -p "$OUT/nginx/logs" "$OUT/nginx/html"
printf 'hello from nginx\n' > "$OUT/nginx/html/index.html"
cat > "$OUT/nginx/nginx.conf" <<CONF
$( [ "$(id -u)" = 0 ] && echo "user root;" )
worker_processes 1;
daemon off;
error_log $OUT/nginx/logs/error.log;
pid $OUT/nginx/nginx.pid;
worker_rlimit_nofile 65536;
events { worker_connections 30000; }
http {
  access_log off;
  keepalive_requests 100000000;
  server {
    listen 127.0.0.1:$NPORT backlog=$BACKLOG; root $OUT/nginx/html;
    $(if nginx_status; then echo "location = /weft-status { stub_status; }"; fi)
  }
}
CONF
"$(command -v nginx || echo /usr/sbin/nginx)" -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf" &
NPID=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$NPORT") 2>/dev/null && break; sleep 0.1; done
for KA in keep-alive close; do
  if [ $KA = close ]; then WRKH=(-H 'Connection: close'); WEFTH=(--no-keep-alive); else WRKH=(); WEFTH=(); fi
  for C in $NS; do
    # Whole run: WHOLE seconds (wrk's default -d is 10 s), no warm-up, for both.
    THEIRS="$(timeout -k 10 "$TMO" wrk -t 2 -c "$C" -d "${WHOLE}s" "${WRKH[@]}" "http://127.0.0.1:$NPORT/" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p')"
    ARCH="http-$KA-$C"
    for RUN in $WHOLERUNS; do
      weft "http-$KA-$C-whole$RUN" http -t "127.0.0.1:$NPORT" "${WEFTH[@]}" -u "$C" -d "${WHOLE}s"
      RESULTS+=("$(verdict "http GET /, $KA, N=$C, whole, $(cat "$OUT/http-$KA-$C-whole$RUN.archive")" "$(rate "$OUT/http-$KA-$C-whole$RUN" GET)" "$THEIRS" "both with their connects")")
      STARTS+=("$(startup "http $KA N=$C" "$OUT/http-$KA-$C-whole$RUN")")
    done
    # Steady state: both run WARM + DUR s; weft-load's figure is its last DUR s, wrk's its whole run.
    SRV="${NSRV:+$NSRV $NPORT}"
    weft "http-$KA-$C-steady" http -t "127.0.0.1:$NPORT" "${WEFTH[@]}" -u "$C" --warmup "${WARM}s" -d "${DUR}s"
    ARCH=
    ctool "wrk-$KA-$C-steady" wrk -t 2 -c "$C" -d "$((WARM + DUR))s" "${WRKH[@]}" "http://127.0.0.1:$NPORT/"
    SRV=
    THEIRS="$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$OUT/wrk-$KA-$C-steady.out")"
    RESULTS+=("$(steadyrow "http GET /, $KA, N=$C, steady state" "$OUT/http-$KA-$C-steady" "wrk-$KA-$C-steady" wrk GET "$THEIRS")")
    SPLITS+=("$(split "http GET /, $KA, N=$C, steady state" "$OUT/http-$KA-$C-steady" GET)")
  done
done
kill "$NPID" 2>/dev/null || true; NPID=
fi

# ---- 3. 100,000 concurrent line users, continuations(1), 1 GB heap
if want line; then
if [ $SMOKE = 1 ]; then U=1000; else U=100000; fi
# As a user's first line run: it trains its archive as it exits (with archives on).
if [ $ARCHIVES = 1 ]; then LINEARCH="$OUT/archive-line"; LINESTATE="first run, trains an archive"; else LINEARCH=off; LINESTATE="no archive"; fi
if WEFT_LOAD_ARCHIVE="$LINEARCH" JDK_JAVA_OPTIONS="${JDK_JAVA_OPTIONS:+$JDK_JAVA_OPTIONS }-Xmx1g" timeout -k 10 900 load/weft-load line --in-vm --mode continuations:1 -u "$U" -n 3 --think 2s --timeout 60s -q \
    -o "$OUT/line-$U" > "$OUT/line-$U.txt" 2>&1 \
  && python3 -c 'import json,sys; s=json.load(open(sys.argv[1]+"/summary.json")); n=int(sys.argv[2]); sys.exit(0 if s["operations"]["echo"]["count"]==3*n and s["errors"]==0 else 1)' "$OUT/line-$U" "$U" \
  && [ -s "$OUT/line-$U/report.html" ]; then
  RESULTS+=("$(printf '%-44s MET     %d users x 3 lines, 2 s think, -Xmx1g, no errors, report made (%s)' "$U concurrent line users, continuations(1)" "$U" "$LINESTATE")")
else
  RESULTS+=("$(printf '%-44s MISSED  see %s' "$U concurrent line users, continuations(1)" "$OUT/line-$U.txt")")
fi
fi

# ---- 4. recording cost
if want jmh; then
if [ $SMOKE = 1 ]; then JARGS='RecordingBenchmark -f 1 -wi 1 -i 1 -w 200ms -r 200ms'; else JARGS='RecordingBenchmark'; fi
./mvnw -B -q -pl load -am test-compile exec:exec -Dexec.executable=java -Djmh.args="$JARGS -rf json -rff $OUT/jmh.json" > "$OUT/jmh.txt" 2>&1
RESULTS+=("$(python3 -c '
import json,sys
for b in json.load(open(sys.argv[1])):
    name=b["benchmark"].rsplit(".",1)[1]
    if name=="twoClockReads": continue
    s=b["primaryMetric"]["score"]; e=b["primaryMetric"]["scoreError"]
    e=e if isinstance(e,(int,float)) and e==e else 0.0
    print("%-44s %s  %.1f +- %.1f ns per timed operation (<= 100 ns)" % ("recording, "+name, "MET   " if s<=100 else "MISSED", s, e))
' "$OUT/jmh.json")")
fi

echo
echo "weft-load targets ($([ $SMOKE = 1 ] && echo 'SMOKE RUN: tiny sizes, figures mean nothing' || echo full))"
for r in "${RESULTS[@]}"; do echo "$r"; done
if [ ${#STARTS[@]} -gt 0 ]; then
  echo
  echo "weft-load start-up (JVM start, class loading, rewrite), apart from the figures above"
  for r in "${STARTS[@]}"; do echo "$r"; done
fi
if [ ${#SPLITS[@]} -gt 0 ]; then
  echo
  echo "weft-load latency, server time (last send to first byte) and client's own time, p50 / p99"
  for r in "${SPLITS[@]}"; do echo "$r"; done
fi
