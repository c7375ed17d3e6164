package io.weft.protocols.isolation;

import io.weft.continuations.Outcome;
import io.weft.continuations.RunAbortedException;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * What the heap tests' child JVMs ({@link FullHeapRun}, {@link ThrashingHeapRun},
 * {@link BusyHeapRun}, {@link OutOfHeapRun}) share: a run of waiting sessions and how it ended,
 * and a server that accepts and never answers.
 */
final class HeapChild {
  private HeapChild() {}

  /**
   * Runs {@code sessions} {@link OutOfHeapRun.Waiter}s; returns how the run ended: "returned, " or
   * "aborted, " (its message on standard error) with {@link #counts}, or "threw " and what. No
   * {@code +} on strings: tests are compiled with {@code invokedynamic} concatenation, and a call
   * site first linked in a full heap (the thrashing child's) fails for good.
   */
  static String run(SessionRunner runner, int sessions, Outcome.Status counted) {
    Object end;
    try {
      end = runner.run(OutOfHeapRun.Waiter.class, sessions);
    } catch (RunAbortedException e) {
      end = e;
    } catch (Exception | Error e) {
      end = e;
    }
    // The heap may still be full (the thrashing child's is, while its ring churns): a full
    // collection, then again, a bounded number of times, as OutOfHeapRun.said does.
    for (int i = 0; i < 20; i++) {
      try {
        return said(end, counted);
      } catch (OutOfMemoryError | InternalError e) {
        System.gc();
      }
    }
    return NO_ROOM;
  }

  /** Made as the class loads (a literal's first use allocates); starts with none of "returned", "aborted". */
  private static final String NO_ROOM = new StringBuilder("no room to say how the run ended").toString();

  private static String said(Object end, Outcome.Status counted) {
    if (end instanceof RunAbortedException) {
      RunAbortedException e = (RunAbortedException) end;
      System.err.println(e.getMessage());
      return new StringBuilder("aborted, ").append(counts(e.result(), counted)).toString();
    }
    if (end instanceof RunResult) {
      return new StringBuilder("returned, ").append(counts((RunResult<?>) end, counted)).toString();
    }
    return new StringBuilder("threw ").append(end).toString();
  }

  /** "N outcomes, M cancelled" (or "succeeded": {@code counted}), or "outcomes not gathered". */
  static String counts(RunResult<?> result, Outcome.Status counted) {
    if (result == null) {
      return "outcomes not gathered";
    }
    int n = 0;
    for (Outcome<?> o : result.outcomes()) {
      if (o.status() == counted) {
        n++;
      }
    }
    return new StringBuilder().append(result.outcomes().size()).append(" outcomes, ").append(n).append(' ')
        .append(counted.name().toLowerCase(Locale.ROOT)).toString();
  }

  /** Accepts for ever (until the process ends), counting each connection down, and never says a word. */
  static void holdOpen(ServerSocket server, CountDownLatch connected) {
    List<Socket> sockets = new ArrayList<>();
    try {
      for (;;) {
        sockets.add(server.accept());
        connected.countDown();
      }
    } catch (IOException e) {
      // Closed as the process ends.
    }
  }
}
