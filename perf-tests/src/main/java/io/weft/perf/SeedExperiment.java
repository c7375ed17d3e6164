package io.weft.perf;

import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.protocols.tester.LineTesterTask;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.mina.ContinuingMinaConnector;
import io.weft.transport.mina.MinaConnector;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The 2008 experiment, reproduced: {@code connections} sessions, each writing a line and reading
 * its echo {@code transactions} times, against an embedded MINA echo server; the figure is wall
 * time per event, an event being one write or one read.
 *
 * <p>Each way of running the sessions is one {@link Row} of the table (see {@link #rows}):
 * SYNC and THREADS on the blocking {@code MinaTransport}, CONTINUATIONS(1) on
 * {@code ContinuingMinaTransport} with the client instrumented by the runner, and, on JDK 21+,
 * VIRTUAL_THREADS on the blocking {@code MinaTransport}. Every row is warmed up with whole untimed
 * runs first (on the same connector and runner, so the rewritten classes stay compiled), then
 * measured once.
 *
 * <p>Below the table, the 2008 experiment's "overhead per continuation": (CONTINUATIONS wall -
 * SYNC wall) / suspends in the continuation run. Over the in-VM pipe with no server delay every
 * reply is there before the read (the pipe delivers inline), nothing suspends and the figure
 * does not exist; over TCP every read suspends.
 *
 * <pre>
 * --transport=vmpipe|tcp   in-VM pipe (default) or loopback TCP
 * --delay-ms=N             server delay before each reply (default 0)
 * --connections=N          sessions per run (default 1000)
 * --transactions=N         write+read pairs per session (default 10)
 * --warmup=N               untimed runs per row before the measured one (default 3)
 * --spin-us=N              CONTINUATIONS rows: spin up to N µs for a reply before suspending
 *                          (the 2008 experiment's trick; default 0, off)
 * </pre>
 */
public final class SeedExperiment {
  private static final Timeout SESSION_TIMEOUT = Timeout.of(30, TimeUnit.SECONDS);
  static final String SEQUENTIAL_CONTINUATIONS = "CONTINUATIONS(1) seq";

  private SeedExperiment() {}

  /** What a run is asked to do. */
  static final class Config {
    boolean tcp;
    long delayMs;
    int connections = 1000;
    int transactions = 10;
    int warmup = 3;
    long spinMicros;

    long events() {
      return 2L * connections * transactions;
    }

    String describe() {
      return connections + " connections x (" + transactions + " writes + " + transactions
          + " reads), " + (tcp ? "loopback TCP" : "in-VM pipe") + ", server delay " + delayMs + " ms"
          + (spinMicros > 0 ? ", continuations spin " + spinMicros + " µs before suspending" : "");
    }

    Connector newConnector() {
      return tcp ? MinaConnector.tcp() : MinaConnector.vmPipe();
    }

    ContinuingMinaConnector newContinuingConnector() {
      ContinuingMinaConnector.Builder builder = ContinuingMinaConnector.builder()
          .spinBeforeSuspend(spinMicros, TimeUnit.MICROSECONDS);
      return tcp ? builder.tcp() : builder.vmPipe();
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
        connector = continuing ? config.newContinuingConnector() : config.newConnector();
        runner = SessionRunner.builder().mode(mode).connector(connector).address(server)
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
      return connector instanceof ContinuingMinaConnector ? ((ContinuingMinaConnector) connector).suspends() : 0L;
    }

    private long spun() {
      return connector instanceof ContinuingMinaConnector ? ((ContinuingMinaConnector) connector).spun() : 0L;
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
    List<Row> rows = new ArrayList<>();
    rows.add(new SyncRow());
    rows.add(new RunnerRow("THREADS", Mode.THREADS, false));
    rows.add(new RunnerRow("CONTINUATIONS(1)", Mode.continuations(1), true));
    // Like for like with SYNC: one session at a time, so a suspend replaces a blocked wait.
    rows.add(new RunnerRow(SEQUENTIAL_CONTINUATIONS, Mode.continuations(1), true, 1));
    if (Runtime.version().feature() >= 21) {
      rows.add(new RunnerRow("VIRTUAL_THREADS", Mode.VIRTUAL_THREADS, false));
    }
    return rows;
  }

  /** One measured line. */
  static final class Result {
    final String mode;
    final int connections;
    final long events;
    final long wallNanos;
    final int failed;
    /** Waits that suspended, or -1 for a mode that never suspends. */
    final long suspends;

    Result(String mode, int connections, long events, long wallNanos, int failed, long suspends) {
      this.mode = mode;
      this.connections = connections;
      this.events = events;
      this.wallNanos = wallNanos;
      this.failed = failed;
      this.suspends = suspends;
    }
  }

  public static void main(String[] args) throws Exception {
    Config config;
    try {
      config = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println("usage: SeedExperiment [--transport=vmpipe|tcp] [--delay-ms=N]"
          + " [--connections=N] [--transactions=N] [--warmup=N] [--spin-us=N]");
      System.exit(2);
      return;
    }
    System.out.println("Weft seed experiment: " + config.describe());
    System.out.println("Warm-up: " + config.warmup + " untimed run(s) per row before the measured run.");
    System.out.println();

    List<Result> results = new ArrayList<>();
    StringBuilder spins = new StringBuilder();
    EchoServer.Builder builder = EchoServer.builder().delay(config.delayMs, TimeUnit.MILLISECONDS);
    try (EchoServer server = config.tcp ? builder.startTcp() : builder.startVmPipe()) {
      LineTesterTask task = new LineTesterTask(config.transactions);
      for (Row row : rows()) {
        try (row) {
          for (int i = 0; i < config.warmup; i++) {
            row.run(config, server.address(), task);
          }
          long start = System.nanoTime();
          int failed = row.run(config, server.address(), task);
          long wall = System.nanoTime() - start;
          results.add(new Result(row.mode(), config.connections, config.events(), wall, failed, row.lastSuspends()));
          if (config.spinMicros > 0 && row.lastSpun() >= 0) {
            spins.append(String.format(Locale.ROOT, "%s: %d waits ended in the %d µs spin%n", row.mode(),
                row.lastSpun(), config.spinMicros));
          }
        }
      }
    }
    System.out.print(table(results));
    System.out.println();
    System.out.println(overheadPerContinuation(results));
    System.out.print(spins);
    for (String line : targetLines(results)) {
      System.out.println("# target: " + line);
    }
    System.out.println();
    System.out.println("JDK " + System.getProperty("java.runtime.version") + " ("
        + System.getProperty("java.vm.name") + "), " + Runtime.getRuntime().availableProcessors()
        + " cores, " + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
    System.out.println("events = connections x transactions x 2 (one write and one read each);"
        + " µs/event = wall time / events; suspends = waits that suspended a continuation.");
    System.out.println("SYNC: one session after another on the main thread; THREADS: a platform thread per"
        + " session; both on MinaTransport (blocking). CONTINUATIONS(1): ContinuingMinaTransport, one worker,"
        + " every session in flight; " + SEQUENTIAL_CONTINUATIONS + ": the same, one session at a time (maxInFlight 1)."
        + " VIRTUAL_THREADS (JDK 21+): a virtual thread per session on MinaTransport (blocking).");
  }

  /**
   * The 2008 experiment's figure, one line per continuation row: what a continuation costs over
   * running the same sessions synchronously, per suspend. Only the one-at-a-time row compares
   * like for like; with every session in flight at once, concurrency hides waits and the
   * difference can be negative.
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
      double diffMs = (continued.wallNanos - sync.wallNanos) / 1e6;
      if (continued.suspends == 0) {
        out.append(String.format(Locale.ROOT, "overhead per continuation, %s: none to compute: 0 suspends"
            + " (every exchange took the fast path); wall - SYNC wall = %+.1f ms, %+.2f µs/event",
            continued.mode, diffMs, diffMs * 1e3 / continued.events));
      } else {
        out.append(String.format(Locale.ROOT, "overhead per continuation, %s = (wall - SYNC wall) / suspends"
            + " = (%.1f ms - %.1f ms) / %d = %.2f µs", continued.mode, continued.wallNanos / 1e6,
            sync.wallNanos / 1e6, continued.suspends, diffMs * 1e3 / continued.suspends));
      }
    }
    return out.length() == 0 ? "overhead per continuation: needs a CONTINUATIONS row" : out.toString();
  }

  /** Issue 5's target for the experiment: continuation wall time at most this times SYNC's. */
  static final double TARGET_RATIO = 1.2;

  /**
   * Issue 5's target, one line per continuation row: the ratio of its wall time to SYNC's, at
   * most {@value #TARGET_RATIO} (the 2008 experiment measured 4.0), MET or MISSED with the
   * figures, or NOT MEASURED when a row is missing or had failed sessions. Printed, never
   * asserted.
   */
  static List<String> targetLines(List<Result> results) {
    Result sync = null;
    for (Result r : results) {
      if (r.mode.equals("SYNC")) {
        sync = r;
      }
    }
    List<String> lines = new ArrayList<>();
    for (Result r : results) {
      if (!r.mode.startsWith("CONTINUATIONS")) {
        continue;
      }
      String head = r.mode + " / SYNC wall time <= " + TARGET_RATIO + " (2008: 4.0"
          + (r.mode.equals(SEQUENTIAL_CONTINUATIONS) ? "; like for like, one session at a time"
              : "; every session in flight") + "): ";
      if (sync == null) {
        lines.add(head + "NOT MEASURED, no SYNC row");
      } else if (sync.failed > 0 || r.failed > 0) {
        lines.add(head + "NOT MEASURED, failed sessions: SYNC " + sync.failed + ", " + r.mode + " " + r.failed);
      } else {
        double ratio = (double) r.wallNanos / sync.wallNanos;
        lines.add(head + (ratio <= TARGET_RATIO ? "MET" : "MISSED") + String.format(Locale.ROOT,
            ", %.2f (%.1f ms / %.1f ms)", ratio, r.wallNanos / 1e6, sync.wallNanos / 1e6));
      }
    }
    if (lines.isEmpty()) {
      lines.add("CONTINUATIONS / SYNC wall time <= " + TARGET_RATIO + ": NOT MEASURED, no CONTINUATIONS row");
    }
    return lines;
  }

  static String table(List<Result> results) {
    StringBuilder out = new StringBuilder();
    String format = "%-20s %12s %10s %10s %10s %7s %10s%n";
    out.append(String.format(Locale.ROOT, format, "mode", "connections", "events", "wall ms", "µs/event", "failed",
        "suspends"));
    for (Result r : results) {
      double wallMs = r.wallNanos / 1e6;
      double perEvent = r.wallNanos / 1e3 / r.events;
      out.append(String.format(Locale.ROOT, format, r.mode, r.connections, r.events,
          String.format(Locale.ROOT, "%.1f", wallMs), String.format(Locale.ROOT, "%.2f", perEvent), r.failed,
          r.suspends < 0 ? "-" : Long.toString(r.suspends)));
    }
    return out.toString();
  }

  static Config parse(String[] args) {
    Config config = new Config();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg : arg.substring(0, eq);
      String value = eq < 0 ? "" : arg.substring(eq + 1);
      switch (name) {
        case "--transport":
          if (value.equals("tcp")) {
            config.tcp = true;
          } else if (value.equals("vmpipe")) {
            config.tcp = false;
          } else {
            throw new IllegalArgumentException("--transport must be vmpipe or tcp: " + value);
          }
          break;
        case "--delay-ms":
          config.delayMs = number(name, value, 0);
          break;
        case "--connections":
          config.connections = (int) number(name, value, 1);
          break;
        case "--transactions":
          config.transactions = (int) number(name, value, 0);
          break;
        case "--warmup":
          config.warmup = (int) number(name, value, 0);
          break;
        case "--spin-us":
          config.spinMicros = number(name, value, 0);
          break;
        default:
          throw new IllegalArgumentException("unknown argument: " + arg);
      }
    }
    return config;
  }

  private static long number(String name, String value, long min) {
    long n;
    try {
      n = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " needs a number: " + value);
    }
    if (n < min || n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(name + " < " + min + ": " + value);
    }
    return n;
  }
}
