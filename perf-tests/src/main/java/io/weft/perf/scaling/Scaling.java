package io.weft.perf.scaling;

import io.weft.perf.internal.BenchmarkEchoServer;
import io.weft.perf.internal.DelayingEchoServer;
import io.weft.perf.internal.EchoServerProcess;
import io.weft.perf.internal.ExchangeLatency;
import io.weft.perf.internal.HeapProbe;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.HdrHistogram.Histogram;

/**
 * Issue 5's scaling benchmark: concurrent sessions (100 to 100,000) each doing the line
 * tester's 10 exchanges against an echo server that delays every reply, per mode, per
 * transport. Prints a table, writes CSV, JSON, the table and PNG charts into a results folder.
 *
 * <p>Each run has two phases. Connect: the echo server holds every reply while the mode starts
 * its sessions; once every session has sent its first line and waits for the reply, the heap is
 * weighed (every session is suspended or parked at that moment) and the replies are released.
 * Exchanges: from the release to the last session's end is the wall time, so every mode is
 * timed with all its sessions live at once, and session start-up (thread creation, connects)
 * shows separately as "connect ms".
 *
 * <p>Per run: wall time against the latency-bound ideal, events/s, peak live platform threads,
 * heap per session, and p50/p99/max latency per exchange from an HdrHistogram recorder.
 * {@code --help} lists the options. A benchmark, not a test: nothing here asserts a figure.
 */
public final class Scaling {
  static final int GATE_STALL_SECONDS = 3;
  static final String MODEL =
      "ideal = transactions x delay: a session's exchanges are serial and each waits the delay;\n"
      + "# sessions are independent, so with unbounded CPU all of them end in one session's time.\n"
      + "# Once the CPU is saturated wall/ideal grows with sessions: compare modes at equal sessions.\n"
      + "# event = one write or one read (an exchange is both); events/s = completed x transactions"
      + " x 2 / wall.\n"
      + "# The server holds every reply until all sessions wait for their first one (connect ms);\n"
      + "# wall and latencies count from the release. Replies leave on 0.1 ms ticks: each waits\n"
      + "# the delay plus up to 0.1 ms, so even one session runs at ~1.1-1.4x ideal here.\n"
      + "# latency = one exchange, writeLine + flush to the checked reply. heap/session = live heap\n"
      + "# while all sessions wait, minus before, over sessions; on the pipe (and with\n"
      + "# --tcp-server inline) it counts the in-process echo server's side of each session too;\n"
      + "# platform thread stacks are off-heap. TCP's echo server runs in a child JVM by default.";

  private final Options options;
  private final PrintStream out;
  private final Function<String, Mode> modeFactory;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final ExecutorService probeRunner = Executors.newSingleThreadExecutor(r -> {
    Thread thread = new Thread(r, "heap-probe-run");
    thread.setDaemon(true);
    return thread;
  });

  Scaling(Options options, PrintStream out, Function<String, Mode> modeFactory) {
    this.options = options;
    this.out = out;
    this.modeFactory = modeFactory;
  }

  public static void main(String[] args) throws Exception {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(Options.USAGE);
      System.exit(2);
      return;
    }
    if (options.help) {
      System.out.println(Options.USAGE);
      return;
    }
    List<ScalingResult> results = run(options, System.out);
    boolean clean = results.stream().allMatch(r -> r.failed == 0);
    System.exit(clean ? 0 : 1);
  }

  /** Runs every (transport, sessions, mode) of {@code options} and writes the results folder. */
  public static List<ScalingResult> run(Options options, PrintStream out) throws Exception {
    return run(options, out, name -> Modes.create(name, options));
  }

  /** As {@link #run(Options, PrintStream)}, creating each transport's modes by name with {@code modeFactory}. */
  static List<ScalingResult> run(Options options, PrintStream out,
      Function<String, Mode> modeFactory) throws Exception {
    Scaling scaling = new Scaling(options, out, modeFactory);
    try {
      return scaling.runAll();
    } finally {
      scaling.probeRunner.shutdownNow();
    }
  }

  private List<ScalingResult> runAll() throws Exception {
    Map<String, String> environment = environment();
    out.println("# Weft scaling: concurrent sessions x " + options.transactions
        + " exchanges, echo server delaying each reply by " + options.delayMs + " ms");
    for (Map.Entry<String, String> e : environment.entrySet()) {
      out.println("# " + e.getKey() + ": " + e.getValue());
    }
    out.println("# " + MODEL);
    List<ScalingResult> results = new ArrayList<>();
    StringBuilder table = new StringBuilder();
    for (TransportKind transport : options.transports) {
      out.println();
      String header = ResultsTable.header(transport);
      out.print(header);
      table.append(header);
      try (BenchmarkEchoServer server = startServer(transport);
          Modes modes = new Modes(options.modes, modeFactory)) {
        warmUp(transport, server, modes.list);
        for (int sessions : options.sessions) {
          for (Mode mode : modes.list) {
            ScalingResult result = runOne(transport, server, mode, sessions);
            results.add(result);
            String row = ResultsTable.row(result);
            out.print(row);
            out.flush();
            table.append(row);
          }
        }
      }
    }
    List<String> targets = TargetChecks.check(results);
    if (!targets.isEmpty()) {
      out.println();
      table.append(System.lineSeparator());
      for (String line : targets) {
        out.println("# target: " + line);
        table.append("# target: ").append(line).append(System.lineSeparator());
      }
    }
    Files.createDirectories(options.out);
    ResultsWriter.writeCsv(options.out.resolve("scaling.csv"), results);
    ResultsWriter.writeJson(options.out.resolve("scaling.json"), environment, results);
    Files.writeString(options.out.resolve("scaling.txt"), table, StandardCharsets.UTF_8);
    List<Path> charts = ScalingCharts.write(options.out, results);
    out.println();
    out.println("# results: " + options.out.toAbsolutePath() + " (scaling.csv, scaling.json,"
        + " scaling.txt, " + charts.size() + " charts)");
    return results;
  }

  private BenchmarkEchoServer startServer(TransportKind transport) throws IOException {
    if (transport == TransportKind.PIPE) {
      return DelayingEchoServer.pipe(options.delayMs, TimeUnit.MILLISECONDS);
    }
    if (options.tcpServerProcess) {
      return EchoServerProcess.start(options.tcpHosts, options.delayMs, List.of());
    }
    List<InetAddress> hosts = new ArrayList<>();
    for (int i = 1; i <= options.tcpHosts; i++) {
      hosts.add(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) i}));
    }
    return DelayingEchoServer.tcp(hosts, options.delayMs, TimeUnit.MILLISECONDS);
  }

  private void warmUp(TransportKind transport, BenchmarkEchoServer server, List<Mode> modes)
      throws Exception {
    if (options.warmupSessions == 0) {
      return;
    }
    for (Mode mode : modes) {
      Workload workload = workload(transport, server, options.warmupSessions, new ExchangeLatency());
      if (harnessLimit(workload) == null && mode.unavailableReason(workload) == null) {
        for (int round = 0; round < options.warmupRounds; round++) {
          mode.run(workload);
        }
      }
    }
  }

  private ScalingResult runOne(TransportKind transport, BenchmarkEchoServer server, Mode mode,
      int sessions) throws Exception {
    double idealMs = options.delayMs == 0 ? Double.NaN : (double) options.transactions * options.delayMs;
    ExchangeLatency latency = new ExchangeLatency();
    Workload workload = workload(transport, server, sessions, latency);
    String unavailable = harnessLimit(workload);
    if (unavailable == null) {
      unavailable = mode.unavailableReason(workload);
    }
    if (unavailable != null) {
      return ScalingResult.notRun(transport.label(), mode.name(), sessions, idealMs, unavailable);
    }
    long heapBefore = HeapProbe.settledHeapUsed();
    threads.resetPeakThreadCount();
    long linesBefore = server.linesReceived();
    long start = System.nanoTime();
    server.hold();
    Future<Outcome> run;
    long waiting;
    double heapPerSession = Double.NaN;
    long released;
    long gateReached;
    try {
      run = probeRunner.submit(() -> mode.run(workload));
      waiting = awaitGate(server, linesBefore, sessions, run);
      gateReached = System.nanoTime();
      if (options.heap && waiting == sessions) {
        heapPerSession = (double) (HeapProbe.settledHeapUsed() - heapBefore) / sessions;
      }
    } finally {
      released = System.nanoTime();
      latency.startClockAt(released);
      server.release();
    }
    Outcome outcome;
    try {
      outcome = run.get(options.timeoutSeconds + 60L, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      // A mode that breaks is a row saying how, not the end of the whole benchmark.
      return ScalingResult.notRun(transport.label(), mode.name(), sessions, idealMs,
          "mode failed: " + e.getCause());
    }
    long end = System.nanoTime();
    int peakThreads = threads.getPeakThreadCount();
    Histogram histogram = latency.intervalHistogram();
    double wallMs = (end - released) / 1e6;
    double events = (double) outcome.completed * options.transactions * 2 / ((end - released) / 1e9);
    List<String> notes = new ArrayList<>();
    if (waiting < sessions) {
      notes.add("gate opened with " + waiting + " of " + sessions + " sessions waiting");
    }
    if (outcome.stoppedBecause != null) {
      notes.add("stopped: " + outcome.stoppedBecause);
    }
    if (outcome.failed > 0) {
      notes.add(outcome.failed + " sessions failed, first: " + outcome.firstFailure);
    }
    boolean any = histogram.getTotalCount() > 0;
    return new ScalingResult(transport.label(), mode.name(), sessions, outcome.completed,
        outcome.failed, (gateReached - start) / 1e6, wallMs, idealMs, events, peakThreads,
        heapPerSession,
        any ? histogram.getValueAtPercentile(50) / 1e3 : Double.NaN,
        any ? histogram.getValueAtPercentile(99) / 1e3 : Double.NaN,
        any ? histogram.getMaxValue() / 1e3 : Double.NaN,
        String.join("; ", notes));
  }

  /**
   * Waits until every session has sent its first line and is waiting for the held reply, and
   * returns how many are. Gives up early when the run ends (every session failed), when no new
   * session arrives for {@value #GATE_STALL_SECONDS} s (a mode that stopped starting sessions,
   * e.g. out of threads), or at the run's timeout.
   */
  private long awaitGate(BenchmarkEchoServer server, long linesBefore, int sessions,
      Future<Outcome> run) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.timeoutSeconds);
    long lastCount = -1;
    long lastProgress = System.nanoTime();
    while (true) {
      long count = server.linesReceived() - linesBefore;
      long now = System.nanoTime();
      if (count >= sessions) {
        return sessions;
      }
      if (count != lastCount) {
        lastCount = count;
        lastProgress = now;
      }
      if (run.isDone() || now - deadline > 0
          || now - lastProgress > TimeUnit.SECONDS.toNanos(GATE_STALL_SECONDS)) {
        return count;
      }
      Thread.sleep(1);
    }
  }

  private Workload workload(TransportKind transport, BenchmarkEchoServer server, int sessions,
      ExchangeLatency latency) {
    return new Workload(transport, server.addresses(), sessions, options.transactions,
        options.connectsInFlight, options.timeoutSeconds, TimeUnit.SECONDS, latency);
  }

  /** What stops every mode alike: file descriptors and ports for in-process loopback TCP. */
  private String harnessLimit(Workload workload) {
    if (workload.transport != TransportKind.TCP) {
      return null;
    }
    long maxFds = Limits.maxFileDescriptors();
    long openFds = Limits.openFileDescriptors();
    int perSession = options.tcpServerProcess ? 1 : 2;
    long need = (long) perSession * workload.sessions + Math.max(0L, openFds) + 100L;
    if (maxFds > 0 && need > maxFds) {
      return "needs " + perSession + " file descriptor(s) per session in this JVM"
          + (perSession == 2 ? " (client and server end)" : "") + ": ~" + need
          + " > open-file limit " + maxFds + " (raise ulimit -n)";
    }
    int ports = Limits.ephemeralPorts();
    int perServer = (workload.sessions + workload.servers.size() - 1) / workload.servers.size();
    if (ports > 0 && perServer > ports) {
      return perServer + " sessions per server address > " + ports
          + " ephemeral ports: use more --tcp-hosts";
    }
    return null;
  }

  private Map<String, String> environment() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("date", OffsetDateTime.now(ZoneOffset.UTC).withNano(0).toString());
    env.put("jdk", System.getProperty("java.vm.vendor") + " " + Runtime.version());
    env.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    env.put("max_heap_mb", Long.toString(Runtime.getRuntime().maxMemory() >> 20));
    List<String> gcs = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      gcs.add(gc.getName());
    }
    env.put("gc", String.join(", ", gcs));
    env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    // Other processes competing for the cores change every figure: say how busy it was.
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    env.put("load_average_1min_at_start", load < 0 ? "unknown" : String.format(Locale.ROOT, "%.2f", load));
    env.put("options", options.toString());
    return env;
  }

  /** The modes of one transport's runs, closed together. */
  private static final class Modes implements AutoCloseable {
    final List<Mode> list = new ArrayList<>();

    Modes(List<String> names, Function<String, Mode> factory) {
      for (String name : names) {
        list.add(factory.apply(name));
      }
    }

    static Mode create(String name, Options options) {
      switch (name) {
        case "CALLBACK":
          return new CallbackMode(options.callbackIoThreads);
        case "THREADS":
          return RunnerMode.threads(options.maxThreads, options.callbackIoThreads);
        case "VIRTUAL_THREADS":
          return RunnerMode.virtualThreads(options.callbackIoThreads);
        default:
          if (name.startsWith("CONTINUATIONS_")) {
            return RunnerMode.continuations(
                Integer.parseInt(name.substring("CONTINUATIONS_".length())), options.callbackIoThreads);
          }
          throw new IllegalArgumentException("unknown mode: " + name);
      }
    }

    @Override
    public void close() {
      for (Mode mode : list) {
        mode.close();
      }
    }
  }

  /** Command-line options. */
  public static final class Options {
    static final String USAGE = String.join("\n",
        "usage: java -cp perf-tests/target/benchmarks.jar io.weft.perf.scaling.Scaling [options]",
        "  --sessions 100,1000,10000   concurrent sessions per run (100000 works on the pipe)",
        "  --modes CONTINUATIONS_1,CONTINUATIONS_2,VIRTUAL_THREADS,THREADS,CALLBACK",
        "                              CONTINUATIONS_k, THREADS, VIRTUAL_THREADS: Weft's runner",
        "  --transports pipe,tcp",
        "  --delay-ms 1                echo server delay per reply",
        "  --transactions 10           exchanges per session",
        "  --max-threads 16000         THREADS runs no more sessions than this",
        "  --tcp-hosts 4               bind the TCP server on 127.0.0.1 .. 127.0.0.N",
        "  --tcp-server process        process: TCP echo server in a child JVM (one fd per",
        "                              session here); inline: in this JVM (two fds per session)",
        "  --io-threads N              MINA I/O threads of every client over TCP (cores + 1)",
        "  --connects-in-flight 1000   CALLBACK: most connects pending at once (the runner's",
        "                              modes connect every session at once)",
        "  --warmup 1000               sessions of each unrecorded warm-up run (0 = none)",
        "  --warmup-rounds 3           warm-up runs per mode and transport",
        "  --no-heap                   skip the heap-per-session run",
        "  --timeout-s 300             per run",
        "  --out perf-tests/results    results folder");

    List<Integer> sessions = List.of(100, 1_000, 10_000);
    List<String> modes = List.of("CONTINUATIONS_1", "CONTINUATIONS_2", "VIRTUAL_THREADS",
        "THREADS", "CALLBACK");
    List<TransportKind> transports = List.of(TransportKind.PIPE, TransportKind.TCP);
    int delayMs = 1;
    int transactions = 10;
    int maxThreads = 16_000;
    int tcpHosts = 4;
    boolean tcpServerProcess = true;
    int callbackIoThreads = Runtime.getRuntime().availableProcessors() + 1;
    int connectsInFlight = 1_000;
    int warmupSessions = 1_000;
    int warmupRounds = 3;
    boolean heap = true;
    int timeoutSeconds = 300;
    Path out = Files.isDirectory(Path.of("perf-tests")) ? Path.of("perf-tests", "results")
        : Path.of("results");
    boolean help;

    /** Parses {@code --name value} and {@code --name=value} options. */
    public static Options parse(String... args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        String arg = args[i];
        String value = null;
        int eq = arg.indexOf('=');
        if (eq > 0) {
          value = arg.substring(eq + 1);
          arg = arg.substring(0, eq);
        }
        if (arg.equals("--help") || arg.equals("-h")) {
          o.help = true;
          continue;
        }
        if (arg.equals("--no-heap")) {
          o.heap = false;
          continue;
        }
        if (value == null) {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException("missing value for " + arg);
          }
          value = args[++i];
        }
        switch (arg) {
          case "--sessions":
            o.sessions = intList(arg, value);
            break;
          case "--modes":
            o.modes = modeList(value);
            break;
          case "--transports":
            List<TransportKind> kinds = new ArrayList<>();
            for (String t : value.split(",")) {
              kinds.add(TransportKind.valueOf(t.trim().toUpperCase(Locale.ROOT)));
            }
            o.transports = List.copyOf(kinds);
            break;
          case "--delay-ms":
            o.delayMs = nonNegative(arg, value);
            break;
          case "--transactions":
            o.transactions = positive(arg, value);
            break;
          case "--max-threads":
            o.maxThreads = positive(arg, value);
            break;
          case "--tcp-hosts":
            o.tcpHosts = positive(arg, value);
            if (o.tcpHosts > 254) {
              throw new IllegalArgumentException("--tcp-hosts > 254: " + value);
            }
            break;
          case "--tcp-server":
            if (!value.equals("process") && !value.equals("inline")) {
              throw new IllegalArgumentException("--tcp-server is process or inline: " + value);
            }
            o.tcpServerProcess = value.equals("process");
            break;
          case "--io-threads":
          case "--callback-io-threads":
            o.callbackIoThreads = positive(arg, value);
            break;
          case "--connects-in-flight":
            o.connectsInFlight = positive(arg, value);
            break;
          case "--warmup":
            o.warmupSessions = nonNegative(arg, value);
            break;
          case "--warmup-rounds":
            o.warmupRounds = positive(arg, value);
            break;
          case "--timeout-s":
            o.timeoutSeconds = positive(arg, value);
            break;
          case "--out":
            o.out = Path.of(value);
            break;
          default:
            throw new IllegalArgumentException("unknown option: " + arg);
        }
      }
      return o;
    }

    private static List<Integer> intList(String name, String value) {
      List<Integer> list = new ArrayList<>();
      for (String part : value.split(",")) {
        list.add(positive(name, part.trim().replace("_", "")));
      }
      return List.copyOf(list);
    }

    private static List<String> modeList(String value) {
      List<String> list = new ArrayList<>();
      for (String part : value.split(",")) {
        String mode = part.trim().toUpperCase(Locale.ROOT).replace('(', '_').replace(")", "");
        if (mode.equals("VIRTUAL")) {
          mode = "VIRTUAL_THREADS";
        }
        if (!mode.matches("CALLBACK|THREADS|VIRTUAL_THREADS|CONTINUATIONS_[0-9]+")) {
          throw new IllegalArgumentException("unknown mode: " + part);
        }
        list.add(mode);
      }
      return List.copyOf(list);
    }

    private static int positive(String name, String value) {
      int n = parseInt(name, value);
      if (n < 1) {
        throw new IllegalArgumentException(name + " < 1: " + value);
      }
      return n;
    }

    private static int nonNegative(String name, String value) {
      int n = parseInt(name, value);
      if (n < 0) {
        throw new IllegalArgumentException(name + " < 0: " + value);
      }
      return n;
    }

    private static int parseInt(String name, String value) {
      try {
        return Integer.parseInt(value);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + " is not a number: " + value);
      }
    }

    @Override
    public String toString() {
      return "sessions=" + sessions + " modes=" + modes + " transports=" + transports
          + " delayMs=" + delayMs + " transactions=" + transactions + " maxThreads=" + maxThreads
          + " tcpHosts=" + tcpHosts + " tcpServer="
          + (tcpServerProcess ? "process" : "inline") + " ioThreads="
          + callbackIoThreads + " connectsInFlight=" + connectsInFlight + " warmup="
          + warmupSessions + "x" + warmupRounds + " heap=" + heap + " timeoutS=" + timeoutSeconds;
    }
  }
}
