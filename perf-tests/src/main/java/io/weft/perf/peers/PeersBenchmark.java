package io.weft.perf.peers;

import io.weft.testsupport.RedisServerProcess;
import io.weft.testsupport.ServerBinaries;
import io.weft.transport.spi.VirtualThreads;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The peers benchmark: Weft's modes against what a user could pick instead, on one neutral
 * workload. It starts a redis-server on a free loopback port; at each N it warms every client
 * up once, then runs rounds in which every client does the same run (N sessions in flight, each
 * on a new connection doing 20 sequential INCRs, about 200,000 timed round trips), the clients
 * in an order that rotates from round to round. It prints and writes the medians over the
 * rounds, ratios taken within each round, the targets (MET / MISSED with the figure) and each
 * round's load average; see perf-tests/README.md for the columns.
 *
 * <p>{@code --workload keepalive} runs the other workload, which separates the per-session cost
 * from the per-round-trip one: N sessions, each on one connection kept for
 * {@code --keepalive-requests} INCRs (10,000), fewer per session where N times that would pass
 * {@code --keepalive-max-round-trips} in one run. The same clients, rounds and targets.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp perf-tests/target/benchmarks.jar \
 *     io.weft.perf.peers.PeersBenchmark --sessions 100,1000,10000 --rounds 3 --out perf-tests/results/peers
 * </pre>
 *
 * Exit status 0 when every client that could run did every round trip, 1 otherwise, 2 on bad
 * arguments. Virtual-thread clients need JDK 21+; on 17 their rows say so.
 */
@Command(name = "peers", mixinStandardHelpOptions = true,
    description = "Weft's modes, plain virtual threads, a Netty callback client and redis-benchmark on"
        + " one redis-server workload; writes peers.md, .csv, .json and charts.")
public final class PeersBenchmark implements Callable<Integer> {
  /** Client ids for --clients, each with its factory, in the default order of round 1. */
  private static final Map<String, Supplier<PeerClient>> CLIENTS = new LinkedHashMap<>();

  static {
    CLIENTS.put("cont1", () -> WeftRunnerClient.continuations(1));
    CLIENTS.put("cont1-pn", () -> WeftRunnerClient.continuationsMinaDefaultProcessors(1));
    CLIENTS.put("cont1-netty", () -> WeftRunnerClient.continuationsOverNetty(1));
    CLIENTS.put("cont2", () -> WeftRunnerClient.continuations(2));
    CLIENTS.put("cont1-workers", () -> WeftRunnerClient.continuationsOnWorkers(1));
    CLIENTS.put("threads-socket", WeftRunnerClient::threadsOverSocket);
    CLIENTS.put("threads-mina", WeftRunnerClient::threadsOverMina);
    CLIENTS.put("vt-socket", WeftRunnerClient::virtualThreadsOverSocket);
    CLIENTS.put("vt-mina", WeftRunnerClient::virtualThreadsOverMina);
    CLIENTS.put("vt-netty", WeftRunnerClient::virtualThreadsOverNetty);
    CLIENTS.put("plain-vt", SocketVirtualThreadClient::new);
    CLIENTS.put("netty", NettyCallbackClient::new);
    CLIENTS.put("redis-benchmark", RedisBenchmarkClient::new);
  }

  /** The client that is a program of its own, never in this JVM. */
  private static final String EXTERNAL_CLIENT = "redis-benchmark";

  /** File descriptors kept free beside N sessions' sockets (JVM, MINA selectors, jars). */
  private static final int SPARE_DESCRIPTORS = 512;

  @Option(names = "--sessions", split = ",", defaultValue = "100,1000,10000",
      description = "N, sessions in flight, one figure per step (default: ${DEFAULT-VALUE})")
  List<Integer> sessions;

  @Option(names = "--rounds", defaultValue = "3", description = "rounds per N (default: ${DEFAULT-VALUE})")
  int rounds;

  @Option(names = "--round-trips", defaultValue = "200000",
      description = "timed round trips per client run, rounded up to whole sessions and at least N sessions"
          + " (default: ${DEFAULT-VALUE})")
  long roundTrips;

  @Option(names = "--warmup-round-trips", defaultValue = "40000",
      description = "round trips of each client's warm-up run at each N, at least N sessions; 0 for none"
          + " (default: ${DEFAULT-VALUE})")
  long warmupRoundTrips;

  @Option(names = "--warmup-runs", defaultValue = "1",
      description = "warm-up runs of each client at each N before the rounds, each printed with its rt/s and CPU/rt"
          + " so that the JIT's settling shows; more of them for figures that compare between builds"
          + " (default: ${DEFAULT-VALUE})")
  int warmupRuns;

  @Option(names = "--settle-jit-pct", defaultValue = "2",
      description = "after --warmup-runs, each client warms up again, up to --max-warmup-runs in all, until the JIT"
          + " compiler threads took at most this %% of its warm-up run's CPU (an unknown share counts as not"
          + " settled); a round whose run passes it says"
          + " 'JIT not settled'; 0: no more warm-ups than --warmup-runs (default: ${DEFAULT-VALUE})")
  double settleJitPct;

  @Option(names = "--max-warmup-runs", defaultValue = "20",
      description = "the most warm-up runs of one client at one N (default: ${DEFAULT-VALUE})")
  int maxWarmupRuns;

  @Option(names = "--requests", defaultValue = "20",
      description = "sequential INCRs per session (default: ${DEFAULT-VALUE})")
  int requests;

  @Option(names = "--workload", defaultValue = "reconnect",
      description = "reconnect: a new connection per session of --requests INCRs; keepalive: N sessions, one"
          + " connection each for --keepalive-requests INCRs (default: ${DEFAULT-VALUE})")
  String workload;

  @Option(names = "--keepalive-requests", defaultValue = "10000",
      description = "keepalive: INCRs per session, on its one connection (default: ${DEFAULT-VALUE})")
  int keepaliveRequests;

  @Option(names = "--keepalive-max-round-trips", defaultValue = "2000000",
      description = "keepalive: at most this many round trips per client run, fewer INCRs per session where N"
          + " times --keepalive-requests would be more (default: ${DEFAULT-VALUE})")
  long keepaliveMaxRoundTrips;

  @Option(names = "--keys", defaultValue = "1000",
      description = "keys the sessions spread over, peers:<session mod keys> (default: ${DEFAULT-VALUE})")
  int keys;

  @Option(names = "--clients", split = ",",
      defaultValue = "cont1,cont1-netty,cont2,threads-socket,threads-mina,vt-socket,vt-mina,vt-netty,plain-vt,netty,"
          + "redis-benchmark",
      description = "which clients, of: ${DEFAULT-VALUE}")
  List<String> clients;

  @Option(names = "--out", defaultValue = "perf-tests/results/peers",
      description = "folder for peers.md, peers.csv, peers.json and the charts (default: ${DEFAULT-VALUE})")
  Path out;

  @Option(names = "--timeout-s", defaultValue = "300",
      description = "time limit of one client's run, and of each operation in it (default: ${DEFAULT-VALUE})")
  long timeoutSeconds;

  @Option(names = "--redis-server", description = "the redis-server binary (default: found on PATH)")
  Path redisServer;

  @Option(names = "--redis-address", paramLabel = "HOST:PORT",
      description = "a redis-server already running (started by the caller, with room for 2N + 1 clients and a deep"
          + " accept queue) to use instead of starting one")
  String redisAddress;

  @Option(names = "--jvm-per-client", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "run each client but redis-benchmark in a JVM of its own (this JVM's options and class path),"
          + " kept for the whole benchmark, as a user runs the one client they picked: its JIT profiles, heap and"
          + " threads not shared with the other clients'; its CPU, context switches, heap and threads measured in"
          + " its JVM (the default; --no-jvm-per-client runs them all in this JVM, one after the other)")
  boolean jvmPerClient;

  /** A new client of id {@code id} in this JVM. */
  static PeerClient newClient(String id) {
    Supplier<PeerClient> factory = CLIENTS.get(id);
    if (factory == null) {
      throw new IllegalArgumentException("unknown client '" + id + "', known: " + CLIENTS.keySet());
    }
    return factory.get();
  }

  /** The command line running this one: its error stream gets the usage errors. */
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(new CommandLine(new PeersBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    validate();
    java.net.InetSocketAddress external = externalRedis();
    Path binary = external != null ? null
        : redisServer != null ? redisServer : ServerBinaries.find(RedisServerProcess.BINARY);
    if (external == null && binary == null) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          ServerBinaries.missingMessage(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE));
    }
    int maxN = 0;
    for (int n : sessions) {
      maxN = Math.max(maxN, n);
    }
    long descriptors = maxDescriptors();
    List<PeerClient> chosen = new ArrayList<>();
    List<PeersRow> rows = new ArrayList<>();
    Map<String, String> environment = new LinkedHashMap<>();
    // Every session of a run may still be connected, as the server counts, while the next
    // connects: room for both, and for the INCR counter's own connection. The accept queue as
    // deep as the kernel allows (Redis's default, 511, drops N=10,000's connects).
    int backlog = CostMeter.somaxconn();
    List<String> redisOptions = List.of("--maxclients", Integer.toString(Math.max(maxN * 2 + 1, 128)),
        "--tcp-backlog", Integer.toString(backlog));
    try (RedisServerProcess redis = external != null ? null : RedisServerProcess.start(binary, redisOptions);
         ServerIncrCounter counter = new ServerIncrCounter(external != null ? external : redis.address());
         CostMeter probe = new CostMeter()) {
      java.net.InetSocketAddress redisAt = external != null ? external : redis.address();
      for (String id : clients) {
        chosen.add(jvmPerClient && !EXTERNAL_CLIENT.equals(id) ? new ForkedClient(id) : newClient(id));
      }
      environment(environment, counter.serverVersion() + (external != null ? " at " + external + ", started by the caller"
          : " " + String.join(" ", redisOptions)), descriptors, chosen);
      System.out.println("# peers: " + environment);
      for (int n : sessions) {
        PeerWorkload run = workload(redisAt, n, roundTrips, keepaliveMaxRoundTrips);
        String tooFewDescriptors = descriptors > 0 && n + SPARE_DESCRIPTORS > descriptors
            ? "N=" + n + " needs an open-file limit of at least " + (n + SPARE_DESCRIPTORS) + " (ulimit -n), this JVM has "
                + descriptors
            : null;
        if (warmupRoundTrips > 0 && tooFewDescriptors == null) {
          PeerWorkload warmup = workload(redisAt, n, warmupRoundTrips, warmupRoundTrips);
          double[] lastJitShare = new double[chosen.size()];
          for (int w = 1; w <= warmupRuns; w++) {
            for (int i = 0; i < chosen.size(); i++) {
              PeerClient client = chosen.get(i);
              if (client.unavailableReason(warmup) == null) {
                lastJitShare[i] = warmup(n, w, client, warmup, probe);
              }
            }
          }
          // Then each client alone, until its JIT has settled: a run measured while the compiler
          // still works bills that client for it (Weft's rewritten code took ~800,000 round trips
          // to settle at N = 100 on 2 loaded cores, far more than one warm-up of 40,000).
          for (int i = 0; i < chosen.size(); i++) {
            PeerClient client = chosen.get(i);
            if (settleJitPct <= 0 || client.unavailableReason(warmup) != null || !client.measuresItsJit()) {
              continue;
            }
            int w = warmupRuns;
            while (!settled(lastJitShare[i]) && w < maxWarmupRuns) {
              w++;
              lastJitShare[i] = warmup(n, w, client, warmup, probe);
            }
            if (!settled(lastJitShare[i])) {
              System.out.printf(Locale.ROOT, "# N=%,d %s: JIT not settled after %d warm-up runs (%s of its last run's"
                  + " CPU)%n", n, client.label(), w, lastJitShare[i] < 0 ? "share unknown" : percent(lastJitShare[i]));
            }
          }
        }
        for (int round = 1; round <= rounds; round++) {
          List<PeersRow> roundRows = new ArrayList<>();
          String loadStart = CostMeter.loadAverage();
          for (int i = 0; i < chosen.size(); i++) {
            PeerClient client = chosen.get((i + round - 1) % chosen.size());
            PeersRow row = measure(client, run, round, i + 1, tooFewDescriptors, counter, probe);
            roundRows.add(row);
            System.out.println(line(row));
          }
          String loadEnd = CostMeter.loadAverage();
          for (PeersRow row : roundRows) {
            row.loadAtRoundStart = loadStart;
            row.loadAtRoundEnd = loadEnd;
          }
          System.out.printf(Locale.ROOT, "# N=%,d round %d: load average %s at start, %s at end%n", n, round,
              loadStart, loadEnd);
          rows.addAll(roundRows);
        }
      }
    } finally {
      for (PeerClient client : chosen) {
        client.close();
      }
    }
    environment.put("load average at end", CostMeter.loadAverage());
    PeersSummary summary = PeersSummary.of(rows);
    List<PeersTargets.Verdict> verdicts = PeersTargets.check(summary, sessions);
    List<Path> files = PeersFiles.write(out, environment, rows, summary, verdicts);
    System.out.println();
    System.out.print(PeersFiles.markdown(environment, rows, summary, verdicts));
    for (PeersTargets.Verdict v : verdicts) {
      System.out.println(v);
    }
    System.out.println("# written: " + files);
    for (PeersRow row : rows) {
      if (PeersRow.INCOMPLETE.equals(row.status)) {
        return 1;
      }
    }
    return 0;
  }

  private boolean keepAlive() {
    return "keepalive".equals(workload);
  }

  /**
   * The run at N: reconnect, sessions of {@code --requests} for about {@code reconnectRoundTrips};
   * keepalive, N sessions of {@code --keepalive-requests}, or fewer each to stay within
   * {@code keepAliveRoundTrips} (at least one).
   */
  private PeerWorkload workload(java.net.InetSocketAddress redis, int n, long reconnectRoundTrips,
      long keepAliveRoundTrips) {
    if (!keepAlive()) {
      return PeerWorkload.forRoundTrips(redis, n, reconnectRoundTrips, requests, keys, timeoutSeconds, TimeUnit.SECONDS);
    }
    int perSession = (int) Math.max(1L, Math.min(keepaliveRequests, keepAliveRoundTrips / n));
    return new PeerWorkload(redis, n, n, perSession, keys, timeoutSeconds, TimeUnit.SECONDS);
  }

  /** The --redis-address, or null to start a redis-server. */
  private java.net.InetSocketAddress externalRedis() {
    if (redisAddress == null) {
      return null;
    }
    int colon = redisAddress.lastIndexOf(':');
    try {
      if (colon > 0) {
        return new java.net.InetSocketAddress(redisAddress.substring(0, colon),
            Integer.parseInt(redisAddress.substring(colon + 1)));
      }
    } catch (IllegalArgumentException e) {
      // Said below.
    }
    throw new CommandLine.ParameterException(spec.commandLine(), "--redis-address: HOST:PORT, not '" + redisAddress
        + "'");
  }

  private void validate() {
    CommandLine cl = spec.commandLine();
    if (!"reconnect".equals(workload) && !keepAlive()) {
      throw new CommandLine.ParameterException(cl, "--workload: reconnect or keepalive, not '" + workload + "'");
    }
    if (sessions.isEmpty() || rounds < 1 || roundTrips < 1 || warmupRoundTrips < 0 || warmupRuns < 1 || requests < 1
        || keys < 1
        || timeoutSeconds < 1 || keepaliveRequests < 1 || keepaliveMaxRoundTrips < 1) {
      throw new CommandLine.ParameterException(cl, "--sessions, --rounds, --round-trips, --warmup-runs, --requests,"
          + " --keys and --timeout-s must be positive, --warmup-round-trips at least 0");
    }
    if (settleJitPct < 0 || maxWarmupRuns < warmupRuns) {
      throw new CommandLine.ParameterException(cl, "--settle-jit-pct must be at least 0 and --max-warmup-runs at least"
          + " --warmup-runs");
    }
    for (int n : sessions) {
      if (n < 1) {
        throw new CommandLine.ParameterException(cl, "--sessions: N < 1: " + n);
      }
    }
    for (String id : clients) {
      if (!CLIENTS.containsKey(id)) {
        throw new CommandLine.ParameterException(cl, "--clients: unknown client '" + id + "', known: "
            + CLIENTS.keySet());
      }
    }
  }

  private PeersRow measure(PeerClient client, PeerWorkload workload, int round, int order, String tooFewDescriptors,
      ServerIncrCounter counter, CostMeter probe) throws Exception {
    PeersRow row = new PeersRow();
    row.sessions = workload.concurrency;
    row.round = round;
    row.order = order;
    row.client = client.label();
    row.expectedRoundTrips = workload.roundTrips();
    String unavailable = tooFewDescriptors != null ? tooFewDescriptors : client.unavailableReason(workload);
    if (unavailable != null) {
      row.status = PeersRow.SKIPPED;
      row.note = unavailable;
      return row;
    }
    // A level start for every client: the previous client's garbage is not this one's.
    System.gc();
    long incrBefore = counter.incrCalls();
    long overflowsBefore = CostMeter.listenOverflows();
    ClientRun run;
    CostMeter.Figures figures = null;
    if (client.inProcess()) {
      CostMeter.Reading start = probe.start();
      run = client.run(workload);
      figures = probe.end(start);
    } else {
      run = client.run(workload);
      figures = run.figures;
    }
    long served = counter.incrCalls() - incrBefore;
    long overflowsAfter = CostMeter.listenOverflows();
    row.listenOverflows = overflowsBefore < 0 || overflowsAfter < 0 ? null : overflowsAfter - overflowsBefore;
    row.serverIncrCalls = served;
    row.completedRoundTrips = run.latency != null ? run.completedRoundTrips : Math.min(served, run.completedRoundTrips);
    row.failedSessions = run.failedSessions;
    boolean ok = run.failedSessions == 0 && row.completedRoundTrips == row.expectedRoundTrips
        && served == row.expectedRoundTrips;
    row.status = ok ? PeersRow.OK : PeersRow.INCOMPLETE;
    if (!ok) {
      row.note = run.firstFailure != null ? run.firstFailure
          : "client counted " + row.completedRoundTrips + ", server " + served + " of " + row.expectedRoundTrips;
    }
    long done = row.completedRoundTrips;
    if (run.wallNanos > 0) {
      row.wallMs = run.wallNanos / 1e6;
      row.roundTripsPerSecond = done * 1e9 / run.wallNanos;
    }
    if (run.latency != null) {
      Histogram h = run.latency;
      if (h.getTotalCount() > 0) {
        row.p50Micros = h.getValueAtPercentile(50.0) / 1000.0;
        row.p99Micros = h.getValueAtPercentile(99.0) / 1000.0;
      }
    } else {
      row.p50Micros = Double.isNaN(run.reportedP50Micros) ? null : run.reportedP50Micros;
      row.p99Micros = Double.isNaN(run.reportedP99Micros) ? null : run.reportedP99Micros;
    }
    long cpu = figures != null ? figures.cpuNanos : run.externalCpuNanos;
    long switches = figures != null ? figures.contextSwitches : run.externalContextSwitches;
    if (done > 0 && cpu >= 0) {
      row.cpuMicrosPerRoundTrip = cpu / 1000.0 / done;
    }
    if (done > 0 && switches >= 0) {
      row.contextSwitchesPerRoundTrip = (double) switches / done;
    }
    if (figures != null && done > 0 && figures.voluntarySwitches >= 0) {
      row.voluntaryContextSwitchesPerRoundTrip = (double) figures.voluntarySwitches / done;
    }
    if (figures != null && figures.jitShare() >= 0) {
      row.jitCpuPct = figures.jitShare() * 100;
    }
    if (figures != null) {
      row.peakHeapAfterGcMb = figures.peakHeapAfterGcBytes < 0 ? null : figures.peakHeapAfterGcBytes / 1048576.0;
      row.peakThreads = figures.peakThreads;
      List<String> notes = new ArrayList<>();
      if (row.note != null) {
        notes.add(row.note);
      }
      if (figures.peakHeapAfterGcBytes < 0) {
        notes.add("no GC during the run");
      }
      if (figures.switchesUnreadable != null) {
        notes.add(figures.switchesUnreadable);
      }
      if (settleJitPct > 0 && client.measuresItsJit() && !settled(figures.jitShare())) {
        notes.add(figures.jitShare() < 0 ? "JIT share unknown"
            : "JIT not settled: " + percent(figures.jitShare()) + " of the run's CPU");
      }
      row.note = notes.isEmpty() ? null : String.join("; ", notes);
    } else if (row.note == null) {
      row.note = "child process: latency as it reports it, CPU and context switches from its rusage; no heap or"
          + " thread figures";
    }
    return row;
  }

  /**
   * Runs warm-up {@code w} of {@code client} and prints how fast, at what CPU cost and with what
   * share of it the JIT's, to show the JIT settling; returns that share (-1 unknown).
   */
  private double warmup(int n, int w, PeerClient client, PeerWorkload warmup, CostMeter probe) throws Exception {
    if (client.inProcess()) {
      // A level start, as for a measured run.
      System.gc();
    }
    CostMeter.Reading start = client.inProcess() ? probe.start() : null;
    ClientRun run = client.run(warmup);
    CostMeter.Figures figures = start != null ? probe.end(start) : run.figures;
    double jit = figures != null ? figures.jitShare() : -1.0;
    String line = warmupLine(n, w, Math.max(w, warmupRuns), client.label(), warmup.roundTrips(), run,
        figures != null ? figures.cpuNanos : -1L);
    System.out.println(jit < 0 ? line : line + ", JIT " + percent(jit));
    return jit;
  }

  /**
   * Whether a JIT share (0 to 1) is within --settle-jit-pct; an unknown one (-1: a run too short
   * for the process's 10 ms CPU clock, a compiler thread stopped, no compiler threads) is not.
   */
  private boolean settled(double jitShare) {
    return jitShare >= 0 && jitShare * 100 <= settleJitPct;
  }

  private static String percent(double share) {
    return share < 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", share * 100);
  }

  /**
   * A warm-up's line: its rt/s and CPU per round trip and, if it did not run clean, its failed
   * sessions and their first failure, or the round trips it fell short by (a warm-up that failed
   * warmed up less than its figures suggest, and may say why the rounds will fail too).
   */
  static String warmupLine(int n, int w, int runs, String label, long expectedRoundTrips, ClientRun run,
      long cpuNanos) {
    long done = run.completedRoundTrips;
    String speed = run.wallNanos > 0 ? String.format(Locale.ROOT, "%,.0f rt/s", done * 1e9 / run.wallNanos) : "- rt/s";
    String cpu = cpuNanos >= 0 && done > 0
        ? String.format(Locale.ROOT, "CPU %.2f µs/rt", cpuNanos / 1000.0 / done) : "CPU -";
    String line = String.format(Locale.ROOT, "# N=%,d warm-up %d/%d %-20s %s, %s", n, w, runs, label, speed, cpu);
    if (run.failedSessions > 0) {
      line += String.format(Locale.ROOT, "; %,d sessions FAILED, first: %s", run.failedSessions, run.firstFailure);
    } else if (done < expectedRoundTrips) {
      line += String.format(Locale.ROOT, "; INCOMPLETE: %,d of %,d round trips", done, expectedRoundTrips);
    }
    return line;
  }

  static String line(PeersRow r) {
    if (PeersRow.SKIPPED.equals(r.status)) {
      return String.format(Locale.ROOT, "# N=%,d round %d %-20s skipped: %s", r.sessions, r.round, r.client, r.note);
    }
    return String.format(Locale.ROOT, "# N=%,d round %d %-20s %s %,d/%,d rt, %,.0f rt/s, p50 %s µs, p99 %s µs,"
            + " CPU %s µs/rt%s, %s ctx sw/rt%s, %s listen overflows%s", r.sessions, r.round, r.client, r.status,
        r.completedRoundTrips,
        r.expectedRoundTrips, r.roundTripsPerSecond == null ? 0.0 : r.roundTripsPerSecond, fmt(r.p50Micros, "%.0f"),
        fmt(r.p99Micros, "%.0f"), fmt(r.cpuMicrosPerRoundTrip, "%.2f"),
        r.jitCpuPct == null ? "" : " (JIT " + fmt(r.jitCpuPct, "%.1f") + "%)",
        fmt(r.contextSwitchesPerRoundTrip, "%.3f"),
        r.voluntaryContextSwitchesPerRoundTrip == null ? ""
            : " (" + fmt(r.voluntaryContextSwitchesPerRoundTrip, "%.3f") + " voluntary)",
        r.listenOverflows == null ? "-" : r.listenOverflows.toString(), r.ok() ? "" : " - " + r.note);
  }

  private static String fmt(Double value, String format) {
    return value == null ? "-" : String.format(Locale.ROOT, format, value);
  }

  private void environment(Map<String, String> env, String redisVersion, long descriptors, List<PeerClient> chosen) {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    List<String> gcs = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      gcs.add(gc.getName());
    }
    env.put("date", Instant.now().toString());
    env.put("java", System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.name") + " "
        + Runtime.version());
    env.put("virtual threads", VirtualThreads.available() ? "yes"
        : "no (" + VirtualThreads.unavailableReason() + "): no VT rows");
    env.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    env.put("os", os.getName() + " " + os.getVersion() + " " + os.getArch());
    env.put("gc", String.join(", ", gcs));
    env.put("max heap MB", Long.toString(Runtime.getRuntime().maxMemory() / 1048576));
    env.put("open-file limit", Long.toString(descriptors));
    env.put("context switches from", CostMeter.contextSwitchSource());
    env.put("redis-server", redisVersion);
    if (keepAlive()) {
      env.put("workload", String.format(Locale.ROOT, "keep-alive: N sessions, each one connection doing %,d sequential"
          + " INCRs (no pipelining) of peers:<session mod %d>, fewer per session where N x that passes %,d round"
          + " trips (then %,d / N); warm-up about %,d round trips per client and N; %d rounds, clients in rotating"
          + " order", keepaliveRequests, keys, keepaliveMaxRoundTrips, keepaliveMaxRoundTrips, warmupRoundTrips,
          rounds));
    } else {
      env.put("workload", String.format(Locale.ROOT, "reconnect: N sessions in flight, each a new connection doing %d"
          + " sequential INCRs (no pipelining) of peers:<session mod %d>; %,d round trips per run (%,d warm-up per"
          + " client and N, %d time(s)); %d rounds, clients in rotating order", requests, keys, roundTrips,
          warmupRoundTrips, warmupRuns, rounds));
    }
    env.put("clients' JVMs", jvmPerClient ? "one per client (--jvm-per-client): " + EXTERNAL_CLIENT
        + " aside, each client runs in a JVM of its own with this one's options, and measures itself there ("
        + childPids(chosen) + "; this JVM pid " + ProcessHandle.current().pid() + ")"
        : "this one: every client but " + EXTERNAL_CLIENT + " runs in this JVM, one after the other");
    env.put("warm-up", settleJitPct <= 0 ? warmupRuns + " run(s) per client and N"
        : String.format(Locale.ROOT, "%d run(s) per client and N, then more (up to %d in all) until the JIT compiler"
            + " threads took at most %.1f%% of a warm-up run's CPU", warmupRuns, maxWarmupRuns, settleJitPct));
    env.put("load average at start", CostMeter.loadAverage());
  }

  private static String childPids(List<PeerClient> clients) {
    List<String> pids = new ArrayList<>();
    for (PeerClient c : clients) {
      if (c instanceof ForkedClient) {
        pids.add(c.label() + " pid " + ((ForkedClient) c).pid());
      }
    }
    return String.join(", ", pids);
  }

  private static long maxDescriptors() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.UnixOperatingSystemMXBean) {
      return ((com.sun.management.UnixOperatingSystemMXBean) os).getMaxFileDescriptorCount();
    }
    return -1L;
  }
}
