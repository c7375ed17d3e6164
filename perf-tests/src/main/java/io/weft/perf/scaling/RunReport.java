package io.weft.perf.scaling;

/** What a {@link SessionDriver} reports about one run. */
public final class RunReport {
  public final int completed;
  public final int failed;
  /** The first session failure, or null. */
  public final String firstFailure;
  /** From the first session's start to the last session's end. */
  public final long wallNanos;
  /** Why the mode could not start every session (it ran those it could), or null. */
  public final String stoppedBecause;

  public RunReport(int completed, int failed, String firstFailure, long wallNanos,
      String stoppedBecause) {
    this.completed = completed;
    this.failed = failed;
    this.firstFailure = firstFailure;
    this.wallNanos = wallNanos;
    this.stoppedBecause = stoppedBecause;
  }
}
