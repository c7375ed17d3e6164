package io.weft.perf.scaling;

import io.weft.perf.Targets;
import io.weft.perf.internal.BenchmarkEchoServer;
import io.weft.perf.internal.EchoServerProcess;
import io.weft.perf.internal.ExchangeLatency;
import io.weft.perf.internal.HeapProbe;
import io.weft.testsupport.EchoServer;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * The scaling benchmark: concurrent sessions (100 to 100,000) each doing the line
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
  private final Function<String, SessionDriver> modeFactory;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final ExecutorService probeRunner = Executors.newSingleThreadExecutor(r -> {
    Thread thread = new Thread(r, "heap-probe-run");
    thread.setDaemon(true);
    return thread;
  });

  Scaling(Options options, PrintStream out, Function<String, SessionDriver> modeFactory) {
    this.options = options;
    this.out = out;
    this.modeFactory = modeFactory;
  }

  public static void main(String[] args) throws Exception {
    Options options;
    CommandLine commandLine = new CommandLine(new Options());
    try {
      options = Options.parse(args);
    } catch (ParameterException e) {
      System.err.println(e.getMessage());
      commandLine.usage(System.err);
      System.exit(2);
      return;
    }
    if (commandLine.parseArgs(args).isUsageHelpRequested()) {
      commandLine.usage(System.out);
      return;
    }
    if (commandLine.isVersionHelpRequested()) {
      commandLine.printVersionHelp(System.out);
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
      Function<String, SessionDriver> modeFactory) throws Exception {
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
          for (SessionDriver mode : modes.list) {
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
    List<String> targets = Targets.scaling(results);
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
    if (transport == TransportKind.TCP && options.tcpServerProcess) {
      return EchoServerProcess.start(options.tcpHosts, options.delayMs, List.of());
    }
    EchoServer.Builder builder = EchoServer.builder().delay(options.delayMs, TimeUnit.MILLISECONDS);
    return BenchmarkEchoServer.inProcess(transport == TransportKind.PIPE ? builder.startVmPipe()
        : builder.loopbackHosts(options.tcpHosts).backlog(EchoServerProcess.BACKLOG).startTcp());
  }

  private void warmUp(TransportKind transport, BenchmarkEchoServer server, List<SessionDriver> modes)
      throws Exception {
    if (options.warmupSessions == 0) {
      return;
    }
    for (SessionDriver mode : modes) {
      Workload workload = workload(transport, server, options.warmupSessions, new ExchangeLatency());
      if (harnessLimit(workload) == null && mode.unavailableReason(workload) == null) {
        for (int round = 0; round < options.warmupRounds; round++) {
          mode.run(workload);
        }
      }
    }
  }

  private ScalingResult runOne(TransportKind transport, BenchmarkEchoServer server, SessionDriver mode,
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
    Future<RunReport> run;
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
    RunReport outcome;
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
      Future<RunReport> run) throws InterruptedException {
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

  /**
   * The driver named {@code name}: CALLBACK, THREADS (at most {@code maxThreads} sessions),
   * VIRTUAL_THREADS or CONTINUATIONS_k; {@code ioThreads} MINA I/O threads over TCP.
   */
  static SessionDriver newDriver(String name, int maxThreads, int ioThreads) {
    switch (name) {
      case "CALLBACK":
        return new CallbackDriver(ioThreads);
      case "THREADS":
        return RunnerDriver.threads(maxThreads, ioThreads);
      case "VIRTUAL_THREADS":
        return RunnerDriver.virtualThreads(ioThreads);
      default:
        if (name.startsWith("CONTINUATIONS_")) {
          return RunnerDriver.continuations(
              Integer.parseInt(name.substring("CONTINUATIONS_".length())), ioThreads);
        }
        throw new IllegalArgumentException("unknown mode: " + name);
    }
  }

  /** The modes of one transport's runs, closed together. */
  private static final class Modes implements AutoCloseable {
    final List<SessionDriver> list = new ArrayList<>();

    Modes(List<String> names, Function<String, SessionDriver> factory) {
      for (String name : names) {
        list.add(factory.apply(name));
      }
    }

    static SessionDriver create(String name, Options options) {
      return newDriver(name, options.maxThreads, options.callbackIoThreads);
    }

    @Override
    public void close() {
      for (SessionDriver mode : list) {
        mode.close();
      }
    }
  }

  /** Command-line options (picocli; {@code --help} lists them). */
  @Command(name = "Scaling", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Concurrent sessions x modes x transports against an echo server that delays"
          + " every reply; a table on stdout, CSV, JSON, the table and charts in --out.")
  public static final class Options {
    @Option(names = "--sessions", split = ",", paramLabel = "N", converter = CountConverter.class,
        description = "concurrent sessions per run (default 100,1000,10000; 100000 works on the pipe)")
    List<Integer> sessions = List.of(100, 1_000, 10_000);
    @Option(names = "--modes", split = ",", paramLabel = "MODE", converter = ModeNameConverter.class,
        description = "CONTINUATIONS_k, THREADS, VIRTUAL_THREADS (Weft's runner) and CALLBACK"
            + " (default CONTINUATIONS_1,CONTINUATIONS_2,VIRTUAL_THREADS,THREADS,CALLBACK)")
    List<String> modes = List.of("CONTINUATIONS_1", "CONTINUATIONS_2", "VIRTUAL_THREADS",
        "THREADS", "CALLBACK");
    @Option(names = "--transports", split = ",", paramLabel = "pipe|tcp", converter = TransportKind.Converter.class,
        description = "default pipe,tcp")
    List<TransportKind> transports = List.of(TransportKind.PIPE, TransportKind.TCP);
    @Option(names = "--delay-ms", description = "echo server delay per reply (default ${DEFAULT-VALUE})")
    int delayMs = 1;
    @Option(names = "--transactions", description = "exchanges per session (default ${DEFAULT-VALUE})")
    int transactions = 10;
    @Option(names = "--max-threads", description = "THREADS runs no more sessions than this (default ${DEFAULT-VALUE})")
    int maxThreads = 16_000;
    @Option(names = "--tcp-hosts", description = "bind the TCP server on 127.0.0.1 .. 127.0.0.N (default ${DEFAULT-VALUE})")
    int tcpHosts = 4;
    @Option(names = "--tcp-server", paramLabel = "process|inline", converter = ServerPlacement.class,
        description = "process (default): TCP echo server in a child JVM, one fd per session here;"
            + " inline: in this JVM, two fds per session")
    boolean tcpServerProcess = true;
    @Option(names = {"--io-threads", "--callback-io-threads"},
        description = "MINA I/O threads of every client over TCP (default cores + 1)")
    int callbackIoThreads = Runtime.getRuntime().availableProcessors() + 1;
    @Option(names = "--connects-in-flight", description = "CALLBACK: most connects pending at once;"
        + " the runner's modes connect every session at once (default ${DEFAULT-VALUE})")
    int connectsInFlight = 1_000;
    @Option(names = "--warmup", description = "sessions of each unrecorded warm-up run, 0 = none (default ${DEFAULT-VALUE})")
    int warmupSessions = 1_000;
    @Option(names = "--warmup-rounds", description = "warm-up runs per mode and transport (default ${DEFAULT-VALUE})")
    int warmupRounds = 3;
    @Option(names = "--no-heap", negatable = false, description = "skip the heap-per-session weighing")
    void noHeap(boolean noHeap) {
      heap = !noHeap;
    }

    boolean heap = true;
    @Option(names = "--timeout-s", description = "per run (default ${DEFAULT-VALUE})")
    int timeoutSeconds = 300;
    @Option(names = "--out", description = "results folder (default perf-tests/results)")
    Path out = Files.isDirectory(Path.of("perf-tests")) ? Path.of("perf-tests", "results")
        : Path.of("results");

    /** Parses the command line; a {@link ParameterException} says what is wrong with it. */
    public static Options parse(String... args) {
      Options o = new Options();
      CommandLine commandLine = new CommandLine(o);
      commandLine.parseArgs(args);
      o.validate(commandLine);
      return o;
    }

    private void validate(CommandLine commandLine) {
      String wrong = delayMs < 0 ? "--delay-ms < 0: " + delayMs
          : transactions < 1 ? "--transactions < 1: " + transactions
          : maxThreads < 1 ? "--max-threads < 1: " + maxThreads
          : tcpHosts < 1 || tcpHosts > 254 ? "--tcp-hosts not in 1..254: " + tcpHosts
          : callbackIoThreads < 1 ? "--io-threads < 1: " + callbackIoThreads
          : connectsInFlight < 1 ? "--connects-in-flight < 1: " + connectsInFlight
          : warmupSessions < 0 ? "--warmup < 0: " + warmupSessions
          : warmupRounds < 1 ? "--warmup-rounds < 1: " + warmupRounds
          : timeoutSeconds < 1 ? "--timeout-s < 1: " + timeoutSeconds
          : null;
      if (wrong != null) {
        throw new ParameterException(commandLine, wrong);
      }
    }

    /** A positive count; {@code 100_000} reads as 100000. */
    static final class CountConverter implements ITypeConverter<Integer> {
      @Override
      public Integer convert(String value) {
        int n;
        try {
          n = Integer.parseInt(value.trim().replace("_", ""));
        } catch (NumberFormatException e) {
          throw new TypeConversionException("not a number: " + value);
        }
        if (n < 1) {
          throw new TypeConversionException("< 1: " + value);
        }
        return n;
      }
    }

    /** A mode name, forgiving of case and of {@code CONTINUATIONS(2)} for {@code CONTINUATIONS_2}. */
    static final class ModeNameConverter implements ITypeConverter<String> {
      @Override
      public String convert(String value) {
        String mode = value.trim().toUpperCase(Locale.ROOT).replace('(', '_').replace(")", "");
        if (mode.equals("VIRTUAL")) {
          mode = "VIRTUAL_THREADS";
        }
        if (!mode.matches("CALLBACK|THREADS|VIRTUAL_THREADS|CONTINUATIONS_[0-9]+")) {
          throw new TypeConversionException("unknown mode: " + value);
        }
        return mode;
      }
    }

    /** {@code process} or {@code inline}, as whether the TCP server runs in a child JVM. */
    static final class ServerPlacement implements ITypeConverter<Boolean> {
      @Override
      public Boolean convert(String value) {
        if (!value.equals("process") && !value.equals("inline")) {
          throw new TypeConversionException("process or inline: " + value);
        }
        return value.equals("process");
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
