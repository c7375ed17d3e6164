package io.weft.perf.scaling;

/** What a {@link Mode} reports about one run. */
public final class Outcome {
  public final int completed;
  public final int failed;
  /** The first session failure, or null. */
  public final String firstFailure;
  /** From the first session's start to the last session's end. */
  public final long wallNanos;
  /** Why the mode could not start every session (it ran those it could), or null. */
  public final String stoppedBecause;

  public Outcome(int completed, int failed, String firstFailure, long wallNanos,
      String stoppedBecause) {
    this.completed = completed;
    this.failed = failed;
    this.firstFailure = firstFailure;
    this.wallNanos = wallNanos;
    this.stoppedBecause = stoppedBecause;
  }
}
