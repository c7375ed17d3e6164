package io.weft.simulation;

import io.weft.transport.Timeout;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.spi.Deadlines;
import io.weft.transport.spi.Ticker;

/**
 * {@link Deadlines} on a {@link Ticker}: the wait allowed for the next operation and the timeout
 * exceptions, with the very messages of the real transports, read on the virtual clock.
 */
final class VirtualDeadlines {
  private VirtualDeadlines() {}

  static long waitNanos(Ticker clock, Timeout timeout, long sessionStartNanos, String what)
      throws TransportTimeoutException {
    long wait = timeout.hasOperationTimeout() ? timeout.operationTimeoutNanos() : Deadlines.FOREVER;
    if (timeout.hasSessionDeadline()) {
      long left = sessionStartNanos + timeout.sessionDeadlineNanos() - clock.nanoTime();
      if (left <= 0L) {
        throw sessionExpired(timeout, what, "");
      }
      wait = Math.min(wait, left);
    }
    return wait;
  }

  static TransportTimeoutException timedOut(Ticker clock, Timeout timeout, long sessionStartNanos,
      long waitedNanos, String what, String detail) {
    String tail = detail == null ? "" : " " + detail;
    if (timeout.hasSessionDeadline() && clock.nanoTime() - sessionStartNanos >= timeout.sessionDeadlineNanos()) {
      return sessionExpired(timeout, what, tail);
    }
    return new TransportTimeoutException(what + " timed out after " + Deadlines.describe(waitedNanos) + tail);
  }

  static TransportTimeoutException readTimedOut(Ticker clock, Timeout timeout, long sessionStartNanos,
      long waitedNanos, long awaited, String unread) {
    return timedOut(clock, timeout, sessionStartNanos, waitedNanos, "read", "waiting for " + Deadlines.describeAwaited(awaited) + "; " + unread);
  }

  private static TransportTimeoutException sessionExpired(Timeout timeout, String what, String tail) {
    return new TransportTimeoutException(
        what + " timed out: session deadline of " + Deadlines.describe(timeout.sessionDeadlineNanos()) + " passed" + tail);
  }
}
