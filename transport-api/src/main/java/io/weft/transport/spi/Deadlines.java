package io.weft.transport.spi;

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
   * of the session deadline; {@link #FOREVER} when neither is set. Called before each wait, so
   * that an operation started past the deadline fails without waiting.
   *
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started ({@link System#nanoTime()}), for its deadline
   * @param what the operation, for the message ({@code "read"}, {@code "flush"})
   * @return the wait in nanoseconds, positive, or {@link #FOREVER}
   * @throws TransportTimeoutException if the session deadline has already passed
   */
  public static long waitNanos(Timeout timeout, long sessionStartNanos, String what)
      throws TransportTimeoutException {
    long wait = timeout.hasOperationTimeout() ? timeout.operationTimeoutNanos() : FOREVER;
    if (timeout.hasSessionDeadline()) {
      long left = sessionStartNanos + timeout.sessionDeadlineNanos() - System.nanoTime();
      if (left <= 0L) {
        throw sessionExpired(timeout, what, "");
      }
      wait = Math.min(wait, left);
    }
    return wait;
  }

  /**
   * The exception for a wait of {@code waitedNanos} that ran out while doing {@code what}: it
   * names the session deadline instead when that is what has passed, so the message says which
   * bound was hit.
   *
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started ({@link System#nanoTime()}), for its deadline
   * @param waitedNanos how long the wait that ran out was allowed to take
   * @param what the operation, which starts the message
   * @return the exception, for the caller to throw (after closing the transport)
   */
  public static TransportTimeoutException timedOut(
      Timeout timeout, long sessionStartNanos, long waitedNanos, String what) {
    return timedOut(timeout, sessionStartNanos, waitedNanos, what, null);
  }

  /**
   * The exception for a read that ran out of time: {@code read timed out after 2 s waiting for a
   * line (limit 512 bytes); 17 bytes read so far: "+PONG..."}, or, past the session deadline,
   * {@code read timed out: session deadline of 5 s passed waiting for ...}. The message starts as
   * every timeout's does, so that callers matching on the start still match.
   *
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started ({@link System#nanoTime()}), for its deadline
   * @param waitedNanos how long the wait that ran out was allowed to take
   * @param awaited what the read waited for: {@link #line}, {@link #bytes} or {@link #ANY_BYTES}
   * @param unread what arrived and was not taken, as {@link InboundBuffer#describeUnread()} says
   * @return the exception, for the caller to throw (after closing the transport)
   */
  public static TransportTimeoutException readTimedOut(
      Timeout timeout, long sessionStartNanos, long waitedNanos, String awaited, String unread) {
    return timedOut(timeout, sessionStartNanos, waitedNanos, "read", "waiting for " + awaited + "; " + unread);
  }

  /**
   * The texts of {@link #line} and {@link #bytes} for the small sizes, made once each: a read
   * passes its text to every wait, and a session that waits keeps it (a million waiting sessions
   * would keep a million copies). A race fills a slot twice with equal strings, which is harmless.
   */
  private static final String[] LINES = new String[1025];
  private static final String[] BYTES = new String[1025];

  /**
   * What a line read waits for, for {@link #readTimedOut}.
   *
   * @param limit the read's line limit in bytes
   * @return {@code "a line (limit <limit> bytes)"}
   */
  public static String line(int limit) {
    if (limit < 0 || limit >= LINES.length) {
      return "a line (limit " + limit + " bytes)";
    }
    String text = LINES[limit];
    if (text == null) {
      text = "a line (limit " + limit + " bytes)";
      LINES[limit] = text;
    }
    return text;
  }

  /**
   * What a read of exactly {@code count} bytes waits for, for {@link #readTimedOut}.
   *
   * @param count the bytes the read asked for
   * @return {@code "1 byte"} or {@code "<count> bytes"}
   */
  public static String bytes(int count) {
    if (count < 0 || count >= BYTES.length) {
      return count + " bytes";
    }
    String text = BYTES[count];
    if (text == null) {
      text = count + (count == 1 ? " byte" : " bytes");
      BYTES[count] = text;
    }
    return text;
  }

  /** What a read of whatever comes waits for, for {@link #readTimedOut}. */
  public static final String ANY_BYTES = "any bytes";

  private static TransportTimeoutException timedOut(
      Timeout timeout, long sessionStartNanos, long waitedNanos, String what, String detail) {
    String tail = detail == null ? "" : " " + detail;
    if (timeout.hasSessionDeadline()
        && System.nanoTime() - sessionStartNanos >= timeout.sessionDeadlineNanos()) {
      return sessionExpired(timeout, what, tail);
    }
    return new TransportTimeoutException(what + " timed out after " + describe(waitedNanos) + tail);
  }

  private static TransportTimeoutException sessionExpired(Timeout timeout, String what, String tail) {
    return new TransportTimeoutException(
        what + " timed out: session deadline of " + describe(timeout.sessionDeadlineNanos()) + " passed" + tail);
  }

  /**
   * Milliseconds for a {@code Socket.setSoTimeout}, rounded up so that a wait under a
   * millisecond does not become 0, which the socket reads as forever.
   *
   * @param nanos a wait from {@link #waitNanos}
   * @return at least 1, capped at {@link Integer#MAX_VALUE}; 0 for {@link #FOREVER}
   */
  public static int toSoTimeoutMillis(long nanos) {
    if (nanos == FOREVER) {
      return 0;
    }
    long ms = TimeUnit.NANOSECONDS.toMillis(nanos + 999_999L);
    return (int) Math.max(1L, Math.min(Integer.MAX_VALUE, ms));
  }

  /**
   * A short human form of a duration, the one every timeout message uses
   * ({@link Timeout#durationInMessages}).
   *
   * @param nanos the duration
   * @return {@code "200 ms"}, {@code "5 s"}, {@code "750 µs"}
   */
  public static String describe(long nanos) {
    return Timeout.durationInMessages(nanos);
  }
}
