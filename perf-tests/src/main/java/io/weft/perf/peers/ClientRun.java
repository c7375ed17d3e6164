package io.weft.perf.peers;

import org.HdrHistogram.Histogram;

/**
 * What one client's run did: round trips completed, sessions that failed (with what they failed
 * with, how many of each, and the first), the wall time from the first session's start to the last one's end, and either the
 * round-trip latency histogram (in-process clients, and those in a JVM of their own) or the figures
 * an external client reports about itself (null where not known), and for a client in a JVM of its
 * own, that JVM's {@link CostMeter} figures of the run.
 */
final class ClientRun {
  final long completedRoundTrips;
  final int failedSessions;
  final String firstFailure;
  final long wallNanos;
  /** Round-trip latencies in ns; null for an external client. */
  final Histogram latency;
  /** External clients only (else NaN / -1): its own p50 and p99, µs; its CPU and context switches. */
  final double reportedP50Micros;
  final double reportedP99Micros;
  final long externalCpuNanos;
  final long externalContextSwitches;
  /** A client in a JVM of its own: that JVM's figures of the run; else null. */
  final CostMeter.Figures figures;

  private ClientRun(long completedRoundTrips, int failedSessions, String firstFailure, long wallNanos,
      Histogram latency, double reportedP50Micros, double reportedP99Micros, long externalCpuNanos,
      long externalContextSwitches, CostMeter.Figures figures) {
    this.completedRoundTrips = completedRoundTrips;
    this.failedSessions = failedSessions;
    this.firstFailure = firstFailure;
    this.wallNanos = wallNanos;
    this.latency = latency;
    this.reportedP50Micros = reportedP50Micros;
    this.reportedP99Micros = reportedP99Micros;
    this.externalCpuNanos = externalCpuNanos;
    this.externalContextSwitches = externalContextSwitches;
    this.figures = figures;
  }

  static ClientRun inProcess(int failedSessions, String firstFailure, long wallNanos, Histogram latency) {
    return new ClientRun(latency.getTotalCount(), failedSessions, firstFailure, wallNanos, latency,
        Double.NaN, Double.NaN, -1L, -1L, null);
  }

  /** A run of a client in a JVM of its own, with that JVM's figures of it. */
  static ClientRun forked(int failedSessions, String firstFailure, long wallNanos, Histogram latency,
      CostMeter.Figures figures) {
    return new ClientRun(latency.getTotalCount(), failedSessions, firstFailure, wallNanos, latency,
        Double.NaN, Double.NaN, -1L, -1L, figures);
  }

  static ClientRun external(long completedRoundTrips, int failedSessions, String firstFailure, long wallNanos,
      double p50Micros, double p99Micros, long cpuNanos, long contextSwitches) {
    return new ClientRun(completedRoundTrips, failedSessions, firstFailure, wallNanos, null, p50Micros,
        p99Micros, cpuNanos, contextSwitches, null);
  }
}
