package io.weft.transport.internal;

import io.weft.transport.Timeout;
import io.weft.transport.TransportTimeoutException;
import java.util.concurrent.TimeUnit;

/** Turns a {@link Timeout} and a session start into the wait allowed for the next operation. */
public final class Deadlines {
  /** Returned by {@link #waitNanos} when there is no bound at all. */
  public static final long FOREVER = Long.MAX_VALUE;

  private Deadlines() {}

  /**
   * Returns the nanoseconds the next wait may take: the operation timeout, cut to what is left
   * of the session deadline; {@link #FOREVER} when neither is set.
   *
   * @throws TransportTimeoutException if the session deadline has already passed
   */
  public static long waitNanos(Timeout timeout, long sessionStartNanos, String what)
      throws TransportTimeoutException {
    long wait = timeout.hasOperationTimeout() ? timeout.operationTimeoutNanos() : FOREVER;
    if (timeout.hasSessionDeadline()) {
      long left = sessionStartNanos + timeout.sessionDeadlineNanos() - System.nanoTime();
      if (left <= 0L) {
        throw sessionExpired(timeout, what);
      }
      wait = Math.min(wait, left);
    }
    return wait;
  }

  /** The exception for a wait of {@code waitedNanos} that ran out while doing {@code what}. */
  public static TransportTimeoutException timedOut(
      Timeout timeout, long sessionStartNanos, long waitedNanos, String what) {
    if (timeout.hasSessionDeadline()
        && System.nanoTime() - sessionStartNanos >= timeout.sessionDeadlineNanos()) {
      return sessionExpired(timeout, what);
    }
    return new TransportTimeoutException(what + " timed out after " + describe(waitedNanos));
  }

  private static TransportTimeoutException sessionExpired(Timeout timeout, String what) {
    return new TransportTimeoutException(
        what + " timed out: session deadline of " + describe(timeout.sessionDeadlineNanos()) + " passed");
  }

  /** Milliseconds for a {@code Socket.setSoTimeout}: at least 1, 0 meaning forever. */
  public static int toSoTimeoutMillis(long nanos) {
    if (nanos == FOREVER) {
      return 0;
    }
    long ms = TimeUnit.NANOSECONDS.toMillis(nanos + 999_999L);
    return (int) Math.max(1L, Math.min(Integer.MAX_VALUE, ms));
  }

  /** A short human form of a duration: "200 ms", "5 s", "750 µs". */
  public static String describe(long nanos) {
    if (nanos >= 1_000_000_000L && nanos % 1_000_000_000L == 0L) {
      return nanos / 1_000_000_000L + " s";
    }
    if (nanos >= 1_000_000L) {
      return (nanos + 500_000L) / 1_000_000L + " ms";
    }
    return (nanos + 500L) / 1_000L + " µs";
  }
}
