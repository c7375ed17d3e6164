package io.weft.load.internal;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** The end-of-run summary as text: a table per operation, errors by type, the other figures. */
public final class SummaryTable {
  private SummaryTable() {}

  public static void print(Results r, PrintStream out) {
    out.printf(Locale.ROOT, "%s model, %s, %s, %.1f s%n", r.model, r.mode, r.scenario, r.seconds);
    String title = r.open() ? "latency from each iteration's intended start" : "latency (raw)";
    table(r, out, title, 0);
    if (r.open()) {
      table(r, out, "service time (from each operation's own start)", 1);
    } else {
      table(r, out, "latency corrected for coordinated omission (HdrHistogram, expected interval per user "
          + (r.expectedIntervalNanos >= 0 ? Durations.format(r.expectedIntervalNanos) : "users x run / count") + ")", 2);
    }
    if (r.ops.values().stream().anyMatch(op -> op.server != null)) {
      table(r, out, "server time (from the last send in each operation to the first byte after it)", 3);
      table(r, out, "client's own time (each of those operations less its server time)", 4);
    }
    boolean any = false;
    for (Results.Op op : r.ops.values()) {
      for (Map.Entry<String, Long> e : op.errors.entrySet()) {
        if (!any) {
          out.println("errors:");
          any = true;
        }
        out.printf(Locale.ROOT, "  %-16s %-48s %d%n", op.name, e.getKey(), e.getValue());
      }
    }
    if (!any) {
      out.println("errors: none");
    }
    for (Results.Op op : r.ops.values()) {
      long failed = op.errorCount();
      if (failed > 0 && op.latency.getTotalCount() == 0 && !op.name.equals(Metrics.ITERATION) && !op.name.equals("session")) {
        out.printf(Locale.ROOT, "every %s failed: %d of %d%n", op.name, failed, failed);
      }
    }
    for (Map.Entry<String, String> e : r.info.entrySet()) {
      if (e.getKey().startsWith("connect")) {
        out.println(e.getKey() + ": " + e.getValue());
      }
    }
  }

  private static void table(Results r, PrintStream out, String title, int which) {
    out.println(title + ":");
    out.printf(Locale.ROOT, "  %-16s %10s %10s %9s %9s %9s %9s %9s %9s %8s%s%n",
        "operation", "count", "rate/s", "min", "p50", "p90", "p99", "p99.9", "max", "errors", which == 2 ? "  interval" : "");
    for (Results.Op op : r.ops.values()) {
      Histogram h = which == 0 ? op.latency : which == 1 ? op.service : which == 2 ? op.corrected
          : which == 3 ? op.server : op.client;
      if (h == null) {
        continue;
      }
      long n = h.getTotalCount();
      out.printf(Locale.ROOT, "  %-16s %10d %10.1f %9s %9s %9s %9s %9s %9s %8d%s%n", op.name, n,
          r.seconds <= 0 ? 0.0 : op.latency.getTotalCount() / r.seconds,
          v(h, n, -1), v(h, n, 50), v(h, n, 90), v(h, n, 99), v(h, n, 99.9), v(h, n, 100), op.errorCount(),
          which == 2 ? String.format(Locale.ROOT, "  %8s", Durations.format(op.expectedIntervalNanos)) : "");
    }
  }

  private static String v(Histogram h, long n, double percentile) {
    if (n == 0) {
      return "-";
    }
    long value = percentile < 0 ? h.getMinValue() : percentile >= 100 ? h.getMaxValue() : h.getValueAtPercentile(percentile);
    return Durations.format(value);
  }
}
