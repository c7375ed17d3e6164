package io.weft.perf.scaling;

/**
 * One row of a {@link Scaling} run: one mode, one transport, one session count. Figures are
 * NaN or -1 when not measured (a mode that could not run has only its {@link #note}).
 */
public final class ScalingResult {
  public final String transport;
  public final String mode;
  public final int sessions;
  public final int completed;
  public final int failed;
  /** From the first session's start until every session waits for its first reply. */
  public final double connectMs;
  /** From the release of the first replies to the last session's end. */
  public final double wallMs;
  public final double idealMs;
  public final double eventsPerSecond;
  public final int peakThreads;
  /** Heap bytes per session while every session waits for a reply; NaN if not measured. */
  public final double heapBytesPerSession;
  public final double p50Micros;
  public final double p99Micros;
  public final double maxMicros;
  /** Why the mode did not run, stopped early, or failed sessions; "" when all went well. */
  public final String note;

  public ScalingResult(String transport, String mode, int sessions, int completed, int failed,
      double connectMs, double wallMs, double idealMs, double eventsPerSecond, int peakThreads,
      double heapBytesPerSession, double p50Micros, double p99Micros, double maxMicros,
      String note) {
    this.transport = transport;
    this.mode = mode;
    this.sessions = sessions;
    this.completed = completed;
    this.failed = failed;
    this.connectMs = connectMs;
    this.wallMs = wallMs;
    this.idealMs = idealMs;
    this.eventsPerSecond = eventsPerSecond;
    this.peakThreads = peakThreads;
    this.heapBytesPerSession = heapBytesPerSession;
    this.p50Micros = p50Micros;
    this.p99Micros = p99Micros;
    this.maxMicros = maxMicros;
    this.note = note == null ? "" : note;
  }

  /** A row for a mode that did not run, saying why. */
  public static ScalingResult notRun(String transport, String mode, int sessions, double idealMs,
      String why) {
    return new ScalingResult(transport, mode, sessions, 0, 0, Double.NaN, Double.NaN, idealMs, Double.NaN,
        -1, Double.NaN, Double.NaN, Double.NaN, Double.NaN, why);
  }

  /** True when the mode ran and every session completed. */
  public boolean ranCleanly() {
    return completed == sessions && failed == 0;
  }

  /** Wall time over the latency-bound ideal. */
  public double timesIdeal() {
    return wallMs / idealMs;
  }
}
