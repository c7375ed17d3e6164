package io.weft.continuations;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcomes of one {@link SessionRunner#run}, in session order, and how long it took. One
 * failing session never disturbs the others, so a run returns normally however many failed:
 * look at the counts.
 *
 * <pre>{@code
 * RunResult<Long> result = runner.run(CounterTask.class, 2_000, "sample:");
 * System.out.println(result);   // CONTINUATIONS(1): 2000 sessions, 1944 succeeded, 56 failed, 0 cancelled, in 5309 ms
 * if (!result.allSucceeded()) {
 *   for (Outcome<Long> o : result.failures()) {
 *     System.out.println("session " + o.index() + ": " + o.failure());   // e.g. a TransportTimeoutException
 *   }
 * }
 * long total = result.values().stream().mapToLong(Long::longValue).sum();
 * double seconds = result.wallNanos() / 1e9;
 * }</pre>
 *
 * <p>Immutable; made by the runner when every session of the run has ended.
 *
 * @param <T> the task's result type
 */
public final class RunResult<T> {
  private final Mode mode;
  private final List<Outcome<T>> outcomes;
  private final long wallNanos;
  private final long startNanos;
  private final ConnectWindow.Report connectWindow;

  RunResult(Mode mode, List<Outcome<T>> outcomes, long wallNanos, long startNanos, ConnectWindow.Report connectWindow) {
    this.mode = mode;
    this.outcomes = List.copyOf(outcomes);
    this.wallNanos = wallNanos;
    this.startNanos = startNanos;
    this.connectWindow = connectWindow;
  }

  /**
   * The mode the sessions ran in.
   *
   * @return the mode of the run
   */
  public Mode mode() {
    return mode;
  }

  /**
   * One outcome per session; {@code outcomes().get(i).index() == i}.
   *
   * @return every session's outcome, in session order
   */
  public List<Outcome<T>> outcomes() {
    return outcomes;
  }

  /**
   * Session {@code index}'s outcome.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= index < sessions()}
   * @param index the session's index, from 0
   * @return that session's outcome
   */
  public Outcome<T> outcome(int index) {
    return outcomes.get(index);
  }

  /**
   * How many sessions the run had: the {@code sessions} given to {@code run}.
   *
   * @return the number of sessions in the run
   */
  public int sessions() {
    return outcomes.size();
  }

  /**
   * How many sessions ended with {@code status}.
   *
   * @param status the status to count
   * @return the number of sessions that ended with it
   */
  public long count(Outcome.Status status) {
    return outcomes.stream().filter(o -> o.status() == status).count();
  }

  /**
   * True if every session succeeded.
   *
   * @return true if no session failed or was cancelled
   */
  public boolean allSucceeded() {
    return count(Outcome.Status.SUCCEEDED) == outcomes.size();
  }

  /**
   * The results of the sessions that succeeded, in session order.
   *
   * @return the values of the sessions that succeeded
   */
  public List<T> values() {
    List<T> values = new ArrayList<>();
    for (Outcome<T> o : outcomes) {
      if (o.succeeded()) {
        values.add(o.value());
      }
    }
    return values;
  }

  /**
   * The outcomes that did not succeed ({@code FAILED} and {@code CANCELLED}), in session order.
   *
   * @return the outcomes of the sessions that failed or were cancelled
   */
  public List<Outcome<T>> failures() {
    List<Outcome<T>> out = new ArrayList<>();
    for (Outcome<T> o : outcomes) {
      if (!o.succeeded()) {
        out.add(o);
      }
    }
    return out;
  }

  /**
   * Wall-clock time, in nanoseconds, from the first session's start to the last one's end
   * (after class loading and rewriting, which happen before the first session starts).
   *
   * @return the run's wall-clock time in nanoseconds
   */
  public long wallNanos() {
    return wallNanos;
  }

  /**
   * When the run began, on {@link System#nanoTime()}: before its first session started (after
   * class loading and rewriting), the start of {@link #wallNanos()}. Each session's
   * {@link Outcome#connectStartNanos()} is on the same clock.
   *
   * @return the run's start
   */
  public long startNanos() {
    return startNanos;
  }

  /**
   * What the run's connect window did (see {@link SessionRunner.Builder#connectWindow}): how many
   * sessions waited for a place, the longest time it stayed full, places freed without word from
   * the server; over several servers, their windows together ({@link ConnectWindow.Report#addresses()}).
   *
   * @return the report, or empty where the run had no window ({@code SYNC}, in-VM addresses,
   *     {@link ConnectWindow#NONE})
   */
  public java.util.Optional<ConnectWindow.Report> connectWindow() {
    return java.util.Optional.ofNullable(connectWindow);
  }

  /** {@code "<mode>: <n> sessions, <n> succeeded, <n> failed, <n> cancelled, in <ms> ms"}. */
  @Override
  public String toString() {
    return mode + ": " + outcomes.size() + " sessions, " + count(Outcome.Status.SUCCEEDED)
        + " succeeded, " + count(Outcome.Status.FAILED) + " failed, "
        + count(Outcome.Status.CANCELLED) + " cancelled, in " + wallNanos / 1_000_000L + " ms"
        + (connectWindow != null && connectWindow.stalled() ? "; " + connectWindow : "");
  }
}
