package io.weft.samples.pg;

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
 * Shows: Weft's PostgreSQL client, one task class ({@link QueryTask}), run for N sessions in every
 * mode: SYNC, THREADS, continuations over MINA, and VIRTUAL_THREADS on JDK 21+.
 *
 * <pre>
 * java io.weft.samples.pg.PgQuery host port user password database [sessions]   (sessions: 100)
 * </pre>
 *
 * <p>PostgreSQL forks a process per connection and refuses more than {@code max_connections}
 * (100 by default), so the concurrent modes open at most 50 sessions at once ({@code maxInFlight}).
 */
public final class PgQuery {
  private PgQuery() {}

  /** Runs the sample; exits 1 if a session of any mode failed. */
  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: PgQuery host port user password database [sessions]");
      System.exit(2);
    }
    int sessions = args.length > 5 ? Integer.parseInt(args[5]) : 100;
    List<RunResult<String>> results = run(new InetSocketAddress(args[0], Integer.parseInt(args[1])),
        args[2], args[3], args[4], sessions, System.out);
    for (RunResult<String> result : results) {
      if (!result.allSucceeded()) {
        System.exit(1);
      }
    }
  }

  /** Runs {@code sessions} sessions in every mode this JDK has; prints and returns the results. */
  public static List<RunResult<String>> run(InetSocketAddress pg, String user, String password, String database,
      int sessions, PrintStream out) throws Exception {
    Mode[] modes = {Mode.SYNC, Mode.THREADS, Mode.continuations(1), Mode.VIRTUAL_THREADS};
    List<RunResult<String>> results = new ArrayList<>();
    try (SocketConnector sockets = new SocketConnector();
         SuspendingMinaConnector mina = SuspendingMinaConnector.tcp()) {
      for (Mode mode : modes) {
        Connector connector = mode.kind() == Mode.Kind.CONTINUATIONS ? mina : sockets;
        SessionRunner.Builder builder = SessionRunner.builder()
            .mode(mode)
            .connector(connector)
            .address(pg)
            .timeout(Timeout.of(5, TimeUnit.SECONDS).withSessionDeadline(60, TimeUnit.SECONDS))
            .maxInFlight(50);
        if (mode.kind() == Mode.Kind.CONTINUATIONS) {
          // The task's package and the client's; Weft's binary helpers are rewritten unasked.
          builder.instrument("io.weft.samples.pg", "io.weft.protocols");
        }
        SessionRunner runner;
        try {
          runner = builder.build();
        } catch (UnsupportedOperationException e) {
          out.println(mode + ": skipped: " + e.getMessage());   // VIRTUAL_THREADS before JDK 21
          continue;
        }
        try (runner) {
          RunResult<String> result = runner.run(QueryTask.class, sessions, user, password, database);
          out.printf("%s: %d sessions, %d succeeded, %d failed, %.1f ms%n", result.mode(), result.sessions(),
              result.count(Outcome.Status.SUCCEEDED), result.count(Outcome.Status.FAILED), result.wallNanos() / 1e6);
          for (Outcome<String> failure : result.failures().subList(0, Math.min(3, result.failures().size()))) {
            out.println("  session " + failure.index() + " " + failure.status() + ": " + failure.failure());
          }
          results.add(result);
        }
      }
    }
    return results;
  }
}
