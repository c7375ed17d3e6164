package io.weft.perf;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.perf.scaling.TransportKind;
import io.weft.protocols.tester.LineTesterTask;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.mina.MinaConnector;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The seed experiment, reproduced: {@code connections} sessions, each writing a line and reading
 * its echo {@code transactions} times, against the embedded echo server (test-support's
 * {@code EchoServer}, the one every benchmark uses); the figure is wall time per event, an event
 * being one write or one read.
 *
 * <p>Each way of running the sessions is one {@link Row} of the table (see {@link #rows}):
 * SYNC and THREADS on the blocking {@code MinaTransport}, CONTINUATIONS(1) on
 * {@code SuspendingMinaTransport} with the client instrumented by the runner, and, on JDK 21+,
 * VIRTUAL_THREADS on the blocking {@code MinaTransport}. Every row is warmed up with whole untimed
 * runs first (on the same connector and runner, so the rewritten classes stay compiled), then
 * measured once.
 *
 * <p>Below the table, the "overhead per continuation": (CONTINUATIONS wall - SYNC wall) /
 * suspends in the continuation run, printed beside the original experiment's figure
 * ({@link Targets#BASELINE_OVERHEAD_MICROS} µs). The default is loopback TCP, where every read
 * waits for the server and so suspends; over the in-VM pipe with no server delay every reply is
 * there before the read (the pipe delivers inline), nothing suspends and the figure does not
 * exist. {@code --help} lists the options.
 */
public final class SeedExperiment {
  private static final Timeout SESSION_TIMEOUT = Timeout.of(30, TimeUnit.SECONDS);
  static final String SEQUENTIAL_CONTINUATIONS = "CONTINUATIONS(1) seq";

  private SeedExperiment() {}

  /** What a run is asked to do: the command line. */
  @Command(name = "SeedExperiment", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Sessions x exchanges against an embedded echo server, per way of running them;"
          + " prints the table and the overhead per continuation.")
  static final class Config implements Callable<Integer> {
    @Option(names = "--transport", defaultValue = "tcp", converter = TransportKind.Converter.class,
        description = "tcp (loopback, the default: every read suspends) or vmpipe (MINA's in-VM pipe)")
    TransportKind transport = TransportKind.TCP;
    @Option(names = "--delay-ms", defaultValue = "0", description = "server delay before each reply (default ${DEFAULT-VALUE})")
    long delayMs;
    @Option(names = "--connections", defaultValue = "1000", description = "sessions per run (default ${DEFAULT-VALUE})")
    int connections = 1000;
    @Option(names = "--transactions", defaultValue = "10",
        description = "write+read pairs per session (default ${DEFAULT-VALUE})")
    int transactions = 10;
    @Option(names = "--warmup", defaultValue = "3",
        description = "untimed runs per row before the measured one (default ${DEFAULT-VALUE})")
    int warmup = 3;
    @Option(names = "--repeat", defaultValue = "5",
        description = "measured runs per row, in interleaved rounds; the table gives their median and spread"
            + " (default ${DEFAULT-VALUE})")
    int repeat = 5;
    @Option(names = "--spin-us", defaultValue = "0",
        description = "CONTINUATIONS rows: spin up to N µs for a reply before suspending (default 0, off)")
    long spinMicros;
    @Spec
    CommandSpec spec;

    boolean tcp() {
      return transport == TransportKind.TCP;
    }

    long events() {
      return 2L * connections * transactions;
    }

    String describe() {
      return connections + " connections x (" + transactions + " writes + " + transactions
          + " reads), " + (tcp() ? "loopback TCP" : "in-VM pipe") + ", server delay " + delayMs + " ms"
          + (spinMicros > 0 ? ", continuations spin " + spinMicros + " µs before suspending"
              + " (resumed on the runner's worker, where a spin may run)" : "");
    }

    Connector newConnector() {
      return tcp() ? MinaConnector.tcp() : MinaConnector.vmPipe();
    }

    SuspendingMinaConnector newSuspendingConnector() {
      SuspendingMinaConnector.Builder builder = SuspendingMinaConnector.builder()
          .spinBeforeSuspend(spinMicros, TimeUnit.MICROSECONDS);
      return tcp() ? builder.tcp() : builder.vmPipe();
    }

    /** Checks the ranges picocli's types do not. */
    void validate() {
      check(delayMs >= 0, "--delay-ms < 0: " + delayMs);
      check(connections >= 1, "--connections < 1: " + connections);
      check(transactions >= 0, "--transactions < 0: " + transactions);
      check(warmup >= 0, "--warmup < 0: " + warmup);
      check(repeat >= 1, "--repeat < 1: " + repeat);
      check(spinMicros >= 0, "--spin-us < 0: " + spinMicros);
    }

    private void check(boolean ok, String message) {
      if (!ok) {
        throw new ParameterException(spec.commandLine(), message);
      }
    }

    @Override
    public Integer call() throws Exception {
      validate();
      run(this);
      return 0;
    }
  }

  /** One way of running the sessions: one line of the table. Close it after its last run. */
  interface Row extends AutoCloseable {
    /** The mode column, e.g. {@code SYNC} or {@code CONTINUATIONS(1)}. */
    String mode();

    /**
     * Runs {@code config.connections} sessions of {@code task} against {@code server} and
     * returns how many failed. Timed from the call to its return.
     */
    int run(Config config, SocketAddress server, LineTesterTask task) throws Exception;

    /** Waits that suspended during the last run, or -1 for a row that never suspends. */
    default long lastSuspends() {
      return -1L;
    }

    /** Waits that ended in the spin before suspending during the last run, or -1. */
    default long lastSpun() {
      return -1L;
    }

    @Override
    default void close() {}
  }

  /**
   * SYNC: one session after another on the calling thread, MinaTransport blocking on each wait.
   * The connector is made on the first run and kept, as the runner rows keep theirs, so that no
   * row times a connector's start or disposal.
   */
  static final class SyncRow implements Row {
    private Connector connector;

    @Override
    public String mode() {
      return "SYNC";
    }

    @Override
    public int run(Config config, SocketAddress server, LineTesterTask task) throws Exception {
      if (connector == null) {
        connector = config.newConnector();
      }
      int failed = 0;
      for (int i = 0; i < config.connections; i++) {
        try (Transport transport = connector.connect(server, SESSION_TIMEOUT)) {
          if (task.run(transport, i) != config.transactions) {
            failed++;
          }
        } catch (IOException e) {
          if (failed++ == 0) {
            System.err.println("first failure, session " + i + ": " + e);
          }
        }
      }
      return failed;
    }

    @Override
    public void close() {
      if (connector != null) {
        connector.close();
        connector = null;
      }
    }
  }

  /**
   * A mode run by a {@link SessionRunner}: the task class is loaded by name (in CONTINUATIONS,
   * through the runner's instrumenting loader over {@code io.weft.protocols}). The connector and
   * the runner are made on the first run and kept for the next ones.
   */
  static final class RunnerRow implements Row {
    private final String name;
    private final Mode mode;
    private final boolean continuing;
    private final int maxInFlight;
    private Connector connector;
    private SessionRunner runner;
    private long lastSuspends = -1L;
    private long lastSpun = -1L;

    RunnerRow(String name, Mode mode, boolean continuing) {
      this(name, mode, continuing, 0);
    }

    /** @param maxInFlight sessions at once, 0 for all */
    RunnerRow(String name, Mode mode, boolean continuing, int maxInFlight) {
      this.name = name;
      this.mode = mode;
      this.continuing = continuing;
      this.maxInFlight = maxInFlight;
    }

    @Override
    public String mode() {
      return name;
    }

    @Override
    public int run(Config config, SocketAddress server, LineTesterTask task) throws Exception {
      if (runner == null) {
        connector = continuing ? config.newSuspendingConnector() : config.newConnector();
        // Unpaced: the figure is of the sessions, not of a connect ramp; the servers here listen deep.
        runner = SessionRunner.builder().connectPacing(ConnectPacing.NONE).mode(mode).connector(connector).address(server)
            .timeout(SESSION_TIMEOUT).instrument("io.weft.protocols").maxInFlight(maxInFlight).build();
      }
      long before = suspends();
      long spunBefore = spun();
      RunResult<Integer> result = runner.run(LineTesterTask.class, config.connections, task.transactions());
      if (continuing) {
        lastSuspends = suspends() - before;
        lastSpun = spun() - spunBefore;
      }
      long failed = result.count(io.weft.continuations.Outcome.Status.FAILED)
          + result.count(io.weft.continuations.Outcome.Status.CANCELLED);
      if (failed > 0) {
        System.err.println(name + ": first failure: " + result.failures().get(0));
      }
      return (int) failed;
    }

    private long suspends() {
      return connector instanceof SuspendingMinaConnector ? ((SuspendingMinaConnector) connector).suspends() : 0L;
    }

    private long spun() {
      return connector instanceof SuspendingMinaConnector ? ((SuspendingMinaConnector) connector).spun() : 0L;
    }

    @Override
    public long lastSuspends() {
      return lastSuspends;
    }

    @Override
    public long lastSpun() {
      return lastSpun;
    }

    @Override
    public void close() {
      if (runner != null) {
        runner.close();
        connector.close();
        runner = null;
      }
    }
  }

  /** The rows to run, in table order; VIRTUAL_THREADS only on a JDK that has them. */
  static List<Row> rows() {
    return rows(false);
  }

  /**
   * The rows to run; {@code onWorkers}: the continuation rows resume every session on the
   * runner's worker rather than on the I/O thread that woke it (where a session never spins).
   */
  static List<Row> rows(boolean onWorkers) {
    Mode continuations = onWorkers ? Mode.continuations(1).resumeOnWorkers() : Mode.continuations(1);
    List<Row> rows = new ArrayList<>();
    rows.add(new SyncRow());
    rows.add(new RunnerRow("THREADS", Mode.THREADS, false));
    rows.add(new RunnerRow("CONTINUATIONS(1)", continuations, true));
    // Like for like with SYNC: one session at a time, so a suspend replaces a blocked wait.
    rows.add(new RunnerRow(SEQUENTIAL_CONTINUATIONS, continuations, true, 1));
    if (Runtime.version().feature() >= 21) {
      rows.add(new RunnerRow("VIRTUAL_THREADS", Mode.VIRTUAL_THREADS, false));
    }
    return rows;
  }

  /** The rows {@link #rows} leaves out on this JDK, each with why: "VIRTUAL_THREADS: not run: JDK 17 (needs 21+)". */
  static List<String> notRun() {
    int feature = Runtime.version().feature();
    return feature >= 21 ? List.of()
        : List.of("VIRTUAL_THREADS: not run: JDK " + feature + " (virtual threads need JDK 21+)");
  }

  /**
   * One line of the table: a row's measured runs. {@code wallNanos} is their median, so that one
   * noisy run is not taken for the figure; {@code minWallNanos} and {@code maxWallNanos} are the
   * spread.
   */
  static final class Result {
    final String mode;
    final int connections;
    final long events;
    final long wallNanos;
    final long minWallNanos;
    final long maxWallNanos;
    final int runs;
    /** Failed sessions, summed over the runs. */
    final int failed;
    /** Waits that suspended in the last run, or -1 for a mode that never suspends. */
    final long suspends;

    /** A row measured once. */
    Result(String mode, int connections, long events, long wallNanos, int failed, long suspends) {
      this(mode, connections, events, new long[] {wallNanos}, failed, suspends);
    }

    /** A row measured {@code wallNanosRuns.length} times. */
    Result(String mode, int connections, long events, long[] wallNanosRuns, int failed, long suspends) {
      if (wallNanosRuns.length == 0) {
        throw new IllegalArgumentException("no runs");
      }
      long[] sorted = wallNanosRuns.clone();
      java.util.Arrays.sort(sorted);
      int n = sorted.length;
      this.mode = mode;
      this.connections = connections;
      this.events = events;
      this.wallNanos = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
      this.minWallNanos = sorted[0];
      this.maxWallNanos = sorted[n - 1];
      this.runs = n;
      this.failed = failed;
      this.suspends = suspends;
    }
  }

  public static void main(String[] args) {
    int code = new CommandLine(new Config()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  /** The parsed command line, or a {@link ParameterException} saying what is wrong. */
  static Config parse(String... args) {
    Config config = new Config();
    new CommandLine(config).parseArgs(args);
    config.validate();
    return config;
  }

  static void run(Config config) throws Exception {
    System.out.println("Weft seed experiment: " + config.describe());
    System.out.println("Warm-up: " + config.warmup + " untimed run(s) per row; then " + config.repeat
        + " measured run(s) per row in interleaved rounds (wall ms: the median, and the spread min-max).");
    System.out.println();

    StringBuilder spins = new StringBuilder();
    EchoServer.Builder builder = EchoServer.builder().delay(config.delayMs, TimeUnit.MILLISECONDS);
    List<Row> rows = rows(config.spinMicros > 0);
    int n = rows.size();
    long[][] walls = new long[n][config.repeat];
    int[] failed = new int[n];
    try (EchoServer server = config.tcp() ? builder.startTcp() : builder.startVmPipe()) {
      LineTesterTask task = new LineTesterTask(config.transactions);
      for (Row row : rows) {
        for (int i = 0; i < config.warmup; i++) {
          row.run(config, server.address(), task);
        }
      }
      // Interleaved rounds, each starting one row further on: a slow spell of the machine falls
      // on every row alike, not on whichever row ran during it.
      for (int round = 0; round < config.repeat; round++) {
        for (int j = 0; j < n; j++) {
          int r = (round + j) % n;
          long start = System.nanoTime();
          failed[r] += rows.get(r).run(config, server.address(), task);
          walls[r][round] = System.nanoTime() - start;
        }
      }
    } finally {
      for (Row row : rows) {
        row.close();
      }
    }
    List<Result> results = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      Row row = rows.get(r);
      results.add(new Result(row.mode(), config.connections, config.events(), walls[r], failed[r], row.lastSuspends()));
      if (config.spinMicros > 0 && row.lastSpun() >= 0) {
        spins.append(String.format(Locale.ROOT, "%s: %d waits ended in the %d µs spin (last run)%n", row.mode(),
            row.lastSpun(), config.spinMicros));
      }
    }
    System.out.print(table(results));
    for (String line : notRun()) {
      System.out.println(line);
    }
    System.out.println();
    System.out.println(overheadPerContinuation(results));
    System.out.print(spins);
    for (String line : Targets.seed(results)) {
      System.out.println("# target: " + line);
    }
    System.out.println();
    System.out.println("JDK " + System.getProperty("java.runtime.version") + " ("
        + System.getProperty("java.vm.name") + "), " + Runtime.getRuntime().availableProcessors()
        + " cores, " + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
    System.out.println("events = connections x transactions x 2 (one write and one read each);"
        + " µs/event = wall time / events; suspends = waits that suspended a continuation.");
    System.out.println("SYNC: one session after another on the main thread; THREADS: a platform thread per"
        + " session; both on MinaTransport (blocking). CONTINUATIONS(1): SuspendingMinaTransport, one worker,"
        + " every session in flight; " + SEQUENTIAL_CONTINUATIONS + ": the same, one session at a time (maxInFlight 1)."
        + " VIRTUAL_THREADS (JDK 21+): a virtual thread per session on MinaTransport (blocking).");
  }

  /**
   * The experiment's headline figure, one line per continuation row: what a continuation costs
   * over running the same sessions synchronously, per suspend, from the rows' median wall times,
   * beside the original experiment's {@link Targets#BASELINE_OVERHEAD_MICROS} µs. Only the
   * one-at-a-time row compares like for like. A difference that is negative, or no larger than
   * the runs' spread, is printed as below what the run can measure, with the reason, never as a
   * negative cost.
   */
  static String overheadPerContinuation(List<Result> results) {
    Result sync = null;
    for (Result r : results) {
      if (r.mode.equals("SYNC")) {
        sync = r;
      }
    }
    StringBuilder out = new StringBuilder();
    for (Result continued : results) {
      if (continued.suspends < 0) {
        continue;
      }
      if (out.length() > 0) {
        out.append(System.lineSeparator());
      }
      if (sync == null) {
        out.append("overhead per continuation: needs a SYNC row");
        break;
      }
      out.append(overhead(sync, continued));
    }
    return out.length() == 0 ? "overhead per continuation: needs a CONTINUATIONS row" : out.toString();
  }

  private static String overhead(Result sync, Result continued) {
    double diffMs = (continued.wallNanos - sync.wallNanos) / 1e6;
    String head = "overhead per continuation, " + continued.mode;
    if (continued.suspends == 0) {
      return String.format(Locale.ROOT, "%s: none to compute: 0 suspends"
          + " (every exchange took the fast path); wall - SYNC wall = %+.1f ms, %+.2f µs/event",
          head, diffMs, diffMs * 1e3 / continued.events);
    }
    double perSuspend = diffMs * 1e3 / continued.suspends;
    String formula = String.format(Locale.ROOT, "(wall - SYNC wall) / suspends = (%.1f ms - %.1f ms) / %d = %.2f µs",
        continued.wallNanos / 1e6, sync.wallNanos / 1e6, continued.suspends, perSuspend);
    String medians = continued.runs > 1 || sync.runs > 1 ? ", medians of " + continued.runs + " runs" : "";
    if (diffMs < 0) {
      String why = continued.mode.equals(SEQUENTIAL_CONTINUATIONS)
          ? "one session at a time, a resume on the I/O thread that read the reply costs less than waking the"
              + " thread SYNC blocked"
          : "with every session in flight, concurrency hides the waits that SYNC makes one after another";
      return String.format(Locale.ROOT, "%s: below what this run can measure: %s%s is negative: %s, so the"
          + " difference is no cost of a continuation (baseline: %.0f µs)",
          head, formula, medians, why, Targets.BASELINE_OVERHEAD_MICROS);
    }
    double noiseMs = Math.max(spreadMs(sync), spreadMs(continued));
    if (diffMs <= noiseMs) {
      return String.format(Locale.ROOT, "%s: below what this run can measure: the difference, %+.1f ms, is within"
          + " the runs' spread (SYNC %s, %s %s): at most %.2f µs per suspend (baseline: %.0f µs)",
          head, diffMs, range(sync), continued.mode, range(continued), noiseMs * 1e3 / continued.suspends,
          Targets.BASELINE_OVERHEAD_MICROS);
    }
    return String.format(Locale.ROOT, "%s = %s%s (baseline: %.0f µs)", head, formula, medians,
        Targets.BASELINE_OVERHEAD_MICROS);
  }

  private static double spreadMs(Result r) {
    return (r.maxWallNanos - r.minWallNanos) / 1e6;
  }

  private static String range(Result r) {
    return String.format(Locale.ROOT, "%.1f-%.1f ms", r.minWallNanos / 1e6, r.maxWallNanos / 1e6);
  }

  static String table(List<Result> results) {
    StringBuilder out = new StringBuilder();
    String format = "%-20s %12s %10s %10s %17s %10s %7s %10s%n";
    out.append(String.format(Locale.ROOT, format, "mode", "connections", "events", "wall ms", "spread ms",
        "µs/event", "failed", "suspends"));
    for (Result r : results) {
      double wallMs = r.wallNanos / 1e6;
      double perEvent = r.wallNanos / 1e3 / r.events;
      String spread = r.runs == 1 ? "-" : String.format(Locale.ROOT, "%.1f-%.1f", r.minWallNanos / 1e6,
          r.maxWallNanos / 1e6);
      out.append(String.format(Locale.ROOT, format, r.mode, r.connections, r.events,
          String.format(Locale.ROOT, "%.1f", wallMs), spread, String.format(Locale.ROOT, "%.2f", perEvent), r.failed,
          r.suspends < 0 ? "-" : Long.toString(r.suspends)));
    }
    return out.toString();
  }
}
