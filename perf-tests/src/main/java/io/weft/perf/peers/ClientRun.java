package io.weft.perf.peers;

import org.HdrHistogram.Histogram;

/**
 * What one client's run did: round trips completed, sessions that failed (with what they failed
 * with, how many of each, and the first), the wall time from the first session's start to the last one's end, and either the
 * round-trip latency histogram (in-process clients) or the figures an external client reports
 * about itself (null where not known).
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

  private ClientRun(long completedRoundTrips, int failedSessions, String firstFailure, long wallNanos,
      Histogram latency, double reportedP50Micros, double reportedP99Micros, long externalCpuNanos,
      long externalContextSwitches) {
    this.completedRoundTrips = completedRoundTrips;
    this.failedSessions = failedSessions;
    this.firstFailure = firstFailure;
    this.wallNanos = wallNanos;
    this.latency = latency;
    this.reportedP50Micros = reportedP50Micros;
    this.reportedP99Micros = reportedP99Micros;
    this.externalCpuNanos = externalCpuNanos;
    this.externalContextSwitches = externalContextSwitches;
  }

  static ClientRun inProcess(int failedSessions, String firstFailure, long wallNanos, Histogram latency) {
    return new ClientRun(latency.getTotalCount(), failedSessions, firstFailure, wallNanos, latency,
        Double.NaN, Double.NaN, -1L, -1L);
  }

  static ClientRun external(long completedRoundTrips, int failedSessions, String firstFailure, long wallNanos,
      double p50Micros, double p99Micros, long cpuNanos, long contextSwitches) {
    return new ClientRun(completedRoundTrips, failedSessions, firstFailure, wallNanos, null, p50Micros,
        p99Micros, cpuNanos, contextSwitches);
  }
}
