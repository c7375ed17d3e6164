package io.weft.transport.spi;

import io.weft.transport.Timeout;
import io.weft.transport.TransportTimeoutException;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/** Turns a {@link Timeout} and a session start into the wait allowed for the next operation. */
public final class Deadlines {
  /** Returned by {@link #waitNanos} when there is no bound at all. */
  public static final long FOREVER = Long.MAX_VALUE;
  /** {@link #waitOrExpired}'s answer past the session deadline: never a wait, which is positive. */
  private static final long EXPIRED = -1L;

  private static final Ticker SYSTEM = Ticker.system();

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
    return waitNanos(SYSTEM, timeout, sessionStartNanos, what);
  }

  /**
   * As {@link #waitNanos(Timeout, long, String)}, the session deadline read on {@code clock}.
   *
   * @param clock the clock {@code sessionStartNanos} was read on: the connector's
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started, on {@code clock}
   * @param what the operation, for the message
   * @return the wait in nanoseconds, positive, or {@link #FOREVER}
   * @throws TransportTimeoutException if the session deadline has already passed
   */
  public static long waitNanos(Ticker clock, Timeout timeout, long sessionStartNanos, String what)
      throws TransportTimeoutException {
    long wait = waitOrExpired(clock, timeout, sessionStartNanos);
    if (wait == EXPIRED) {
      throw sessionExpired(timeout, what, "");
    }
    return wait;
  }

  /**
   * As {@link #waitNanos(Ticker, Timeout, long, String)} for a connect to {@code remote}, named
   * in the message as {@link ConnectorCore#connectWhat} names it; the words are built only if the
   * deadline has passed, so a connect that goes on never formats its address.
   *
   * @param clock the clock {@code sessionStartNanos} was read on: the connector's
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started, on {@code clock}
   * @param remote the address of the connect
   * @return the wait in nanoseconds, positive, or {@link #FOREVER}
   * @throws TransportTimeoutException if the session deadline has already passed
   */
  public static long connectWaitNanos(Ticker clock, Timeout timeout, long sessionStartNanos, SocketAddress remote)
      throws TransportTimeoutException {
    long wait = waitOrExpired(clock, timeout, sessionStartNanos);
    if (wait == EXPIRED) {
      throw sessionExpired(timeout, ConnectorCore.connectWhat(remote), "");
    }
    return wait;
  }

  /** The wait, or {@link #EXPIRED} if the session deadline has passed. */
  private static long waitOrExpired(Ticker clock, Timeout timeout, long sessionStartNanos) {
    long wait = timeout.hasOperationTimeout() ? timeout.operationTimeoutNanos() : FOREVER;
    if (timeout.hasSessionDeadline()) {
      long left = sessionStartNanos + timeout.sessionDeadlineNanos() - clock.nanoTime();
      if (left <= 0L) {
        return EXPIRED;
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
    return timedOut(SYSTEM, timeout, sessionStartNanos, waitedNanos, what, null);
  }

  /**
   * As {@link #timedOut(Timeout, long, long, String)}, the session deadline read on {@code clock}.
   *
   * @param clock the clock {@code sessionStartNanos} was read on: the connector's
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started, on {@code clock}
   * @param waitedNanos how long the wait that ran out was allowed to take
   * @param what the operation, which starts the message
   * @return the exception, for the caller to throw (after closing the transport)
   */
  public static TransportTimeoutException timedOut(
      Ticker clock, Timeout timeout, long sessionStartNanos, long waitedNanos, String what) {
    return timedOut(clock, timeout, sessionStartNanos, waitedNanos, what, null);
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
      Timeout timeout, long sessionStartNanos, long waitedNanos, long awaited, String unread) {
    return readTimedOut(SYSTEM, timeout, sessionStartNanos, waitedNanos, awaited, unread);
  }

  /**
   * As {@link #readTimedOut(Timeout, long, long, long, String)}, the session deadline read on
   * {@code clock}.
   *
   * @param clock the clock {@code sessionStartNanos} was read on: the connector's
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started, on {@code clock}
   * @param waitedNanos how long the wait that ran out was allowed to take
   * @param awaited what the read waited for: {@link #line}, {@link #bytes} or {@link #ANY_BYTES}
   * @param unread what arrived and was not taken, as {@link InboundBuffer#describeUnread()} says
   * @return the exception, for the caller to throw (after closing the transport)
   */
  public static TransportTimeoutException readTimedOut(
      Ticker clock, Timeout timeout, long sessionStartNanos, long waitedNanos, long awaited, String unread) {
    return timedOut(clock, timeout, sessionStartNanos, waitedNanos, "read",
        "waiting for " + describeAwaited(awaited) + "; " + unread);
  }

  /**
   * As {@link #waitNanos(Ticker, Timeout, long, String)}, at {@code now}, a reading the caller took
   * of the clock {@code sessionStartNanos} was read on: for a wait that is then timed from that same
   * reading, so that it ends exactly at the session deadline.
   *
   * @param now the clock's reading the wait starts at
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started, on the same clock
   * @param what the operation, for the message
   * @return the wait in nanoseconds, positive, or {@link #FOREVER}
   * @throws TransportTimeoutException if the session deadline has already passed at {@code now}
   */
  static long waitNanosAt(long now, Timeout timeout, long sessionStartNanos, String what)
      throws TransportTimeoutException {
    long wait = timeout.hasOperationTimeout() ? timeout.operationTimeoutNanos() : FOREVER;
    if (timeout.hasSessionDeadline()) {
      long left = sessionStartNanos + timeout.sessionDeadlineNanos() - now;
      if (left <= 0L) {
        throw sessionExpired(timeout, what, "");
      }
      wait = Math.min(wait, left);
    }
    return wait;
  }

  // What a read waits for is packed in a long (kind above, count below) rather than described in a
  // String: a read waits once per arrival, and a peer that sends one byte at a time would otherwise
  // make every byte received cost a new message of some 80 bytes that is almost never used.
  private static final long AWAITED_LINE = 1L << 32;
  private static final long AWAITED_BYTES = 2L << 32;
  private static final long AWAITED_ANY = 3L << 32;

  /**
   * What a line read waits for, for {@link #readTimedOut}: "a line (limit 512 bytes)".
   *
   * @param limit the line limit, not negative
   * @return the packed description, which {@link #describeAwaited} spells out
   */
  public static long line(int limit) {
    return AWAITED_LINE | (limit & 0xffffffffL);
  }

  /**
   * What a read of exactly {@code count} bytes waits for, for {@link #readTimedOut}: "12 bytes".
   *
   * @param count the bytes awaited, not negative
   * @return the packed description, which {@link #describeAwaited} spells out
   */
  public static long bytes(int count) {
    return AWAITED_BYTES | (count & 0xffffffffL);
  }

  /** What a read of whatever comes waits for, for {@link #readTimedOut}: "any bytes". */
  public static final long ANY_BYTES = AWAITED_ANY;

  /**
   * Spells out what {@link #line}, {@link #bytes} or {@link #ANY_BYTES} packed, for a timeout's
   * message.
   *
   * @param awaited the packed description
   * @return the words, such as "a line (limit 512 bytes)"
   */
  public static String describeAwaited(long awaited) {
    long kind = awaited & ~0xffffffffL;
    int count = (int) awaited;
    if (kind == AWAITED_LINE) {
      return "a line (limit " + count + " bytes)";
    }
    if (kind == AWAITED_BYTES) {
      return count + (count == 1 ? " byte" : " bytes");
    }
    if (kind == AWAITED_ANY) {
      return "any bytes";
    }
    throw new IllegalArgumentException("not a description of a read: " + awaited);
  }

  private static TransportTimeoutException timedOut(
      Ticker clock, Timeout timeout, long sessionStartNanos, long waitedNanos, String what, String detail) {
    String tail = detail == null ? "" : " " + detail;
    if (timeout.hasSessionDeadline()
        && clock.nanoTime() - sessionStartNanos >= timeout.sessionDeadlineNanos()) {
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
