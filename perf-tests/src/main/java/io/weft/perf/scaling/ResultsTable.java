package io.weft.perf.scaling;

import java.util.Locale;

/**
 * The plain-text table {@link Scaling} prints, one row per run, figures first and the reason
 * last, in the manner of the seed experiment's printout: a '#' header saying how it was
 * measured, then fixed-width columns.
 */
final class ResultsTable {
  private static final String FORMAT =
      "%-9s %-16s %8s %9s %10s %9s %8s %8s %12s %8s %10s %9s %9s %9s  %s%n";

  private ResultsTable() {
  }

  static String header(TransportKind transport) {
    return String.format(Locale.ROOT, FORMAT, "transport", "mode", "sessions", "completed",
        "connect ms", "wall ms", "ideal ms", "x ideal", "events/s", "threads", "heap B/ses", "p50 µs",
        "p99 µs", "max µs", "note");
  }

  static String row(ScalingResult r) {
    return String.format(Locale.ROOT, FORMAT, r.transport, r.mode, r.sessions,
        r.completed, num(r.connectMs, "%.1f"), num(r.wallMs, "%.1f"), num(r.idealMs, "%.0f"), num(r.timesIdeal(), "%.2f"),
        num(r.eventsPerSecond, "%,.0f"), r.peakThreads < 0 ? "-" : Integer.toString(r.peakThreads),
        num(r.heapBytesPerSession, "%,.0f"), num(r.p50Micros, "%,.0f"),
        num(r.p99Micros, "%,.0f"), num(r.maxMicros, "%,.0f"), r.note);
  }

  private static String num(double value, String format) {
    return Double.isNaN(value) || Double.isInfinite(value) ? "-"
        : String.format(Locale.ROOT, format, value);
  }
}
