package io.weft.continuations;

import java.util.Objects;

/**
 * How one session ended: its result, or the exception that ended it.
 *
 * <pre>{@code
 * Outcome<Long> o = result.outcome(7);
 * switch (o.status()) {
 *   case SUCCEEDED: use(o.value()); break;                    // what the task's run returned
 *   case FAILED:    log(o.index(), o.failure()); break;       // the task, its connect or the engine threw
 *   case CANCELLED: break;                                    // the run was cancelled first
 * }
 * }</pre>
 *
 * <p>In {@code CONTINUATIONS} mode an exception class of the instrumented packages is the
 * rewriting class loader's copy, so {@code o.failure() instanceof MyException} is false for it:
 * compare {@code o.failure().getClass().getName()}, or catch it inside the task. JDK and Weft
 * exceptions are the same classes in every mode.
 *
 * <p>Immutable; made by the runner.
 *
 * @param <T> the task's result type
 */
public final class Outcome<T> {
  /** How a session ended. */
  public enum Status {
    /** The task returned; {@link #value()} is what it returned. */
    SUCCEEDED,
    /** The task, its connect or the engine threw; {@link #failure()} says what. */
    FAILED,
    /** The run was cancelled before or while the session ran; {@link #failure()} may say how. */
    CANCELLED
  }

  private final int index;
  private final Status status;
  private final T value;
  private final Throwable failure;
  private final long connectStartNanos;

  /** What {@link #connectStartNanos()} answers for a session that never began its connect. */
  public static final long NOT_CONNECTED = Long.MIN_VALUE;

  Outcome(int index, Status status, T value, Throwable failure, long connectStartNanos) {
    this.index = index;
    this.status = status;
    this.value = value;
    this.failure = failure;
    this.connectStartNanos = connectStartNanos;
  }

  /**
   * The session's number, from 0.
   *
   * @return the session's index, from 0
   */
  public int index() {
    return index;
  }

  /**
   * How the session ended.
   *
   * @return how the session ended
   */
  public Status status() {
    return status;
  }

  /**
   * True if the status is {@link Status#SUCCEEDED}.
   *
   * @return true if the session succeeded
   */
  public boolean succeeded() {
    return status == Status.SUCCEEDED;
  }

  /**
   * The task's result; null unless {@link #succeeded()}.
   *
   * @return what the task returned
   */
  public T value() {
    return value;
  }

  /**
   * What ended the session: the exception out of the task's {@code run} or its connect (a
   * {@code TransportTimeoutException}, a {@code ConnectException}...), or the engine's error;
   * null for a session that succeeded, and possibly for one cancelled before it started.
   *
   * @return what the session threw, or null
   */
  public Throwable failure() {
    return failure;
  }

  /**
   * When the session's connect began, on {@link System#nanoTime()}: after its place in the
   * connect window and its pacing turn, just before the connector was called. Compare it with
   * {@link RunResult#startNanos()} for the run's connect timeline.
   *
   * @return the stamp of the call to the run's connector (a connector that connects nothing, as
   *     weft-load's for users that connect for themselves, is stamped too), or
   *     {@link #NOT_CONNECTED} if the session never called it (cancelled first)
   */
  public long connectStartNanos() {
    return connectStartNanos;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Outcome)) {
      return false;
    }
    Outcome<?> other = (Outcome<?>) o;
    return index == other.index && status == other.status && Objects.equals(value, other.value)
        && Objects.equals(failure, other.failure);
  }

  @Override
  public int hashCode() {
    return Objects.hash(index, status, value);
  }

  @Override
  public String toString() {
    return "session " + index + ": " + status
        + (status == Status.SUCCEEDED ? " " + value : failure == null ? "" : " " + failure);
  }
}
