package io.weft.transport;

import java.util.concurrent.TimeUnit;

/**
 * How long a {@link Transport} may wait: a per-operation timeout and a whole-session deadline.
 *
 * <p>The <em>operation timeout</em> bounds each single wait for the peer: one connect, one
 * wait for more input while reading, one wait for a flush to drain. An operation that
 * completes in several waits (a line that arrives one byte at a time) restarts the clock at
 * each byte, like {@link java.net.Socket#setSoTimeout(int)}.
 *
 * <p>The <em>session deadline</em> bounds the whole life of a transport, measured from the
 * moment the connect starts. Once it has passed, every waiting operation fails at once.
 *
 * <p>Either may be absent. {@link #NONE} has neither: operations wait for as long as it takes.
 * A zero duration means "no timeout", as with {@code Socket.setSoTimeout(0)}.
 *
 * <p>Instances are immutable and may be shared between any number of transports; the session
 * deadline starts separately for each transport that uses it.
 *
 * <p>When a timeout fires the operation throws {@link TransportTimeoutException} and the
 * transport is closed: a timed-out transport is unusable, because the peer may still send the
 * reply that was waited for and no later read could tell it from the next one.
 */
public final class Timeout {
  /** No operation timeout and no session deadline. */
  public static final Timeout NONE = new Timeout(0L, 0L);

  private final long operationNanos;
  private final long sessionNanos;

  private Timeout(long operationNanos, long sessionNanos) {
    this.operationNanos = operationNanos;
    this.sessionNanos = sessionNanos;
  }

  /**
   * Returns a timeout of {@code duration} per operation and no session deadline.
   *
   * @param duration the operation timeout, at least 0
   * @param unit the unit of {@code duration}
   * @return the timeout
   */
  public static Timeout of(long duration, TimeUnit unit) {
    return NONE.withOperationTimeout(duration, unit);
  }

  /**
   * Returns a copy of this with each operation bounded by {@code duration}; 0 means none.
   *
   * @param duration the operation timeout, at least 0
   * @param unit the unit of {@code duration}
   * @return a new timeout
   */
  public Timeout withOperationTimeout(long duration, TimeUnit unit) {
    return new Timeout(toNanos("duration", duration, unit), sessionNanos);
  }

  /**
   * Returns a copy of this whose transports must finish within {@code duration} of the start of
   * their connect; 0 means no deadline.
   *
   * @param duration the session deadline, at least 0
   * @param unit the unit of {@code duration}
   * @return a new timeout
   */
  public Timeout withSessionDeadline(long duration, TimeUnit unit) {
    return new Timeout(operationNanos, toNanos("duration", duration, unit));
  }

  /**
   * The per-operation timeout in nanoseconds, or 0 when there is none.
   *
   * @return the operation timeout in nanoseconds
   */
  public long operationTimeoutNanos() {
    return operationNanos;
  }

  /**
   * The session deadline, in nanoseconds after the connect starts, or 0 when there is none.
   *
   * @return the session deadline in nanoseconds
   */
  public long sessionDeadlineNanos() {
    return sessionNanos;
  }

  /**
   * True when this has an operation timeout.
   *
   * @return true if each operation is bounded
   */
  public boolean hasOperationTimeout() {
    return operationNanos != 0L;
  }

  /**
   * True when this has a session deadline.
   *
   * @return true if the whole session is bounded
   */
  public boolean hasSessionDeadline() {
    return sessionNanos != 0L;
  }

  private static long toNanos(String name, long duration, TimeUnit unit) {
    if (duration < 0L) {
      throw new IllegalArgumentException(name + " < 0: " + duration);
    }
    if (unit == null) {
      throw new IllegalArgumentException("unit == null");
    }
    return unit.toNanos(duration);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Timeout
        && ((Timeout) other).operationNanos == operationNanos
        && ((Timeout) other).sessionNanos == sessionNanos;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(operationNanos) * 31 + Long.hashCode(sessionNanos);
  }

  @Override
  public String toString() {
    if (this.equals(NONE)) {
      return "Timeout.NONE";
    }
    return "Timeout{operation=" + describe(operationNanos) + ", session=" + describe(sessionNanos) + "}";
  }

  /** A duration as the error messages say it ("200 ms", "5 s"), or "none" for 0 (not set). */
  static String describe(long nanos) {
    return nanos == 0L ? "none" : durationInMessages(nanos);
  }

  /**
   * A duration the way Weft's timeout messages print it: whole seconds as {@code "5 s"}, else
   * milliseconds as {@code "200 ms"}, and below a millisecond {@code "750 µs"} (each rounded to
   * the nearest unit).
   *
   * @param nanos the duration, in nanoseconds, {@code >= 0}
   * @return the short form
   */
  public static String durationInMessages(long nanos) {
    if (nanos >= 1_000_000_000L && nanos % 1_000_000_000L == 0L) {
      return nanos / 1_000_000_000L + " s";
    }
    if (nanos >= 1_000_000L) {
      return (nanos + 500_000L) / 1_000_000L + " ms";
    }
    return (nanos + 500L) / 1_000L + " µs";
  }
}
