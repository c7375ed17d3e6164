package io.weft.continuations;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcomes of one {@link SessionRunner#run}, in session order, and how long it took.
 *
 * @param <T> the task's result type
 */
public final class RunResult<T> {
  private final Mode mode;
  private final List<Outcome<T>> outcomes;
  private final long wallNanos;

  RunResult(Mode mode, List<Outcome<T>> outcomes, long wallNanos) {
    this.mode = mode;
    this.outcomes = List.copyOf(outcomes);
    this.wallNanos = wallNanos;
  }

  public Mode mode() {
    return mode;
  }

  /** One outcome per session; {@code outcomes().get(i).index() == i}. */
  public List<Outcome<T>> outcomes() {
    return outcomes;
  }

  public Outcome<T> outcome(int index) {
    return outcomes.get(index);
  }

  public int sessions() {
    return outcomes.size();
  }

  public long count(Outcome.Status status) {
    return outcomes.stream().filter(o -> o.status() == status).count();
  }

  /** True if every session succeeded. */
  public boolean allSucceeded() {
    return count(Outcome.Status.SUCCEEDED) == outcomes.size();
  }

  /** The results of the sessions that succeeded, in session order. */
  public List<T> values() {
    List<T> values = new ArrayList<>();
    for (Outcome<T> o : outcomes) {
      if (o.succeeded()) {
        values.add(o.value());
      }
    }
    return values;
  }

  /** The outcomes that did not succeed. */
  public List<Outcome<T>> failures() {
    List<Outcome<T>> out = new ArrayList<>();
    for (Outcome<T> o : outcomes) {
      if (!o.succeeded()) {
        out.add(o);
      }
    }
    return out;
  }

  /** Wall-clock time from the first session's start to the last one's end. */
  public long wallNanos() {
    return wallNanos;
  }

  @Override
  public String toString() {
    return mode + ": " + outcomes.size() + " sessions, " + count(Outcome.Status.SUCCEEDED)
        + " succeeded, " + count(Outcome.Status.FAILED) + " failed, "
        + count(Outcome.Status.CANCELLED) + " cancelled, in " + wallNanos / 1_000_000L + " ms";
  }
}
