package io.weft.perf;

import io.weft.protocols.tester.LineTesterTask;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.mina.MinaConnector;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The 2008 experiment, reproduced: {@code connections} sessions, each writing a line and reading
 * its echo {@code transactions} times, against an embedded MINA echo server; the figure is wall
 * time per event, an event being one write or one read.
 *
 * <p>Each way of running the sessions is one {@link Row} of the table; later modes
 * (CONTINUATIONS(k), VIRTUAL_THREADS, THREADS) are new rows in {@link #rows}. Every row is warmed
 * up with whole untimed runs first, then measured once.
 *
 * <pre>
 * --transport=vmpipe|tcp   in-VM pipe (default) or loopback TCP
 * --delay-ms=N             server delay before each reply (default 0)
 * --connections=N          sessions per run (default 1000)
 * --transactions=N         write+read pairs per session (default 10)
 * --warmup=N               untimed runs per row before the measured one (default 3)
 * </pre>
 */
public final class SeedExperiment {
  private static final Timeout SESSION_TIMEOUT = Timeout.of(30, TimeUnit.SECONDS);

  private SeedExperiment() {}

  /** What a run is asked to do. */
  static final class Config {
    boolean tcp;
    long delayMs;
    int connections = 1000;
    int transactions = 10;
    int warmup = 3;

    long events() {
      return 2L * connections * transactions;
    }

    String describe() {
      return connections + " connections x (" + transactions + " writes + " + transactions
          + " reads), " + (tcp ? "loopback TCP" : "in-VM pipe") + ", server delay " + delayMs + " ms";
    }

    Connector newConnector() {
      return tcp ? MinaConnector.tcp() : MinaConnector.vmPipe();
    }
  }

  /** One way of running the sessions: one line of the table. */
  interface Row {
    /** The mode column, e.g. {@code SYNC} or {@code CONTINUATIONS(1)}. */
    String mode();

    /**
     * Runs {@code config.connections} sessions of {@code task} against {@code server} and
     * returns how many failed. Timed from the call to its return.
     */
    int run(Config config, SocketAddress server, LineTesterTask task) throws Exception;
  }

  /** SYNC: one session after another on the calling thread, MinaTransport blocking on each wait. */
  static final class SyncRow implements Row {
    @Override
    public String mode() {
      return "SYNC";
    }

    @Override
    public int run(Config config, SocketAddress server, LineTesterTask task) throws Exception {
      int failed = 0;
      try (Connector connector = config.newConnector()) {
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
      }
      return failed;
    }
  }

  /** The rows to run, in table order. */
  static List<Row> rows() {
    List<Row> rows = new ArrayList<>();
    rows.add(new SyncRow());
    return rows;
  }

  /** One measured line. */
  static final class Result {
    final String mode;
    final int connections;
    final long events;
    final long wallNanos;
    final int failed;

    Result(String mode, int connections, long events, long wallNanos, int failed) {
      this.mode = mode;
      this.connections = connections;
      this.events = events;
      this.wallNanos = wallNanos;
      this.failed = failed;
    }
  }

  public static void main(String[] args) throws Exception {
    Config config;
    try {
      config = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println("usage: SeedExperiment [--transport=vmpipe|tcp] [--delay-ms=N]"
          + " [--connections=N] [--transactions=N] [--warmup=N]");
      System.exit(2);
      return;
    }
    System.out.println("Weft seed experiment: " + config.describe());
    System.out.println("Warm-up: " + config.warmup + " untimed run(s) per row before the measured run.");
    System.out.println();

    List<Result> results = new ArrayList<>();
    EchoServer.Builder builder = EchoServer.builder().delay(config.delayMs, TimeUnit.MILLISECONDS);
    try (EchoServer server = config.tcp ? builder.startTcp() : builder.startVmPipe()) {
      LineTesterTask task = new LineTesterTask(config.transactions);
      for (Row row : rows()) {
        for (int i = 0; i < config.warmup; i++) {
          row.run(config, server.address(), task);
        }
        long start = System.nanoTime();
        int failed = row.run(config, server.address(), task);
        long wall = System.nanoTime() - start;
        results.add(new Result(row.mode(), config.connections, config.events(), wall, failed));
      }
    }
    System.out.print(table(results));
    System.out.println();
    System.out.println("JDK " + System.getProperty("java.runtime.version") + " ("
        + System.getProperty("java.vm.name") + "), " + Runtime.getRuntime().availableProcessors()
        + " cores, " + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
    System.out.println("events = connections x transactions x 2 (one write and one read each);"
        + " µs/event = wall time / events.");
  }

  static String table(List<Result> results) {
    StringBuilder out = new StringBuilder();
    String format = "%-20s %12s %10s %10s %10s %7s%n";
    out.append(String.format(Locale.ROOT, format, "mode", "connections", "events", "wall ms", "µs/event", "failed"));
    for (Result r : results) {
      double wallMs = r.wallNanos / 1e6;
      double perEvent = r.wallNanos / 1e3 / r.events;
      out.append(String.format(Locale.ROOT, format, r.mode, r.connections, r.events,
          String.format(Locale.ROOT, "%.1f", wallMs), String.format(Locale.ROOT, "%.2f", perEvent), r.failed));
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
