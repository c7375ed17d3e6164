package io.weft.samples.redis;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Connector;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Shows: one task class ({@link CounterTask}) run for N sessions against Redis in every mode,
 * and how to read what the runner reports ({@link RunResult} and {@link Outcome}).
 *
 * <pre>
 * java io.weft.samples.redis.RedisLoad [host] [port] [sessions]     (defaults: 127.0.0.1 6379 1000)
 * </pre>
 *
 * <p>SYNC, THREADS and VIRTUAL_THREADS use a plain blocking {@link SocketConnector};
 * CONTINUATIONS needs a {@code SuspendingConnector}, here MINA's. The concurrent modes open at
 * most 200 sessions at once ({@code maxInFlight}): without a limit, continuations and virtual
 * threads connect all N at once, and a server's listen backlog (Redis: 511, capped by
 * net.core.somaxconn) turns the overflow into connect or read timeouts.
 */
public final class RedisLoad {
  private RedisLoad() {}

  /** Runs the sample; exits 1 if a session of any mode failed. */
  public static void main(String[] args) throws Exception {
    String host = args.length > 0 ? args[0] : "127.0.0.1";
    int port = args.length > 1 ? Integer.parseInt(args[1]) : 6379;
    int sessions = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
    List<RunResult<Long>> results = run(new InetSocketAddress(host, port), sessions, System.out);
    for (RunResult<Long> result : results) {
      if (!result.allSucceeded()) {
        System.exit(1);
      }
    }
  }

  /** Runs {@code sessions} sessions in every mode this JDK has; prints and returns the results. */
  public static List<RunResult<Long>> run(InetSocketAddress redis, int sessions, PrintStream out)
      throws Exception {
    Mode[] modes = {Mode.SYNC, Mode.THREADS, Mode.continuations(1), Mode.VIRTUAL_THREADS};
    List<RunResult<Long>> results = new ArrayList<>();
    try (SocketConnector sockets = new SocketConnector();
         SuspendingMinaConnector mina = SuspendingMinaConnector.tcp()) {
      for (Mode mode : modes) {
        Connector connector = mode.kind() == Mode.Kind.CONTINUATIONS ? mina : sockets;
        SessionRunner.Builder builder = SessionRunner.builder()
            .mode(mode)
            .connector(connector)
            .address(redis)
            // 2 s for each connect, read or flush; 30 s for a whole session from its connect.
            .timeout(Timeout.of(2, TimeUnit.SECONDS).withSessionDeadline(30, TimeUnit.SECONDS))
            .maxInFlight(200);
        if (mode.kind() == Mode.Kind.CONTINUATIONS) {
          // The task's package and the protocol client's: every class on a path to a wait.
          builder.instrument("io.weft.samples.redis", "io.weft.protocols");
        }
        SessionRunner runner;
        try {
          runner = builder.build();
        } catch (UnsupportedOperationException e) {
          out.println(mode + ": skipped: " + e.getMessage());   // VIRTUAL_THREADS before JDK 21
          continue;
        }
        try (runner) {
          RunResult<Long> result = runner.run(CounterTask.class, sessions, "sample:" + mode + ":");
          print(result, out);
          results.add(result);
        }
      }
    }
    return results;
  }

  /** What a RunResult says: counts by status, the wall time, and the first few failures. */
  static void print(RunResult<Long> result, PrintStream out) {
    out.printf("%s: %d sessions, %d succeeded, %d failed, %d cancelled, %.1f ms%n",
        result.mode(), result.sessions(),
        result.count(Outcome.Status.SUCCEEDED), result.count(Outcome.Status.FAILED),
        result.count(Outcome.Status.CANCELLED), result.wallNanos() / 1e6);
    if (result.sessions() > 0 && result.outcome(result.sessions() - 1).succeeded()) {
      out.println("  last session's INCR returned " + result.outcome(result.sessions() - 1).value());
    }
    List<Outcome<Long>> failures = result.failures();
    for (Outcome<Long> failure : failures.subList(0, Math.min(3, failures.size()))) {
      // failure() is the exception that ended that session alone: a timeout, a refused connect...
      out.println("  session " + failure.index() + " " + failure.status() + ": " + failure.failure());
    }
  }
}
