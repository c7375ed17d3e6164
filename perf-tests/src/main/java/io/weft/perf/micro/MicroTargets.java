package io.weft.perf.micro;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;

/**
 * Issue 5's microbenchmark targets, checked against one JMH run and printed (never asserted):
 * a Weft suspend + resume at depth 3 costs at most {@value #LIMIT_NS} ns, and at most
 * {@value #RATIO}x a virtual thread's park + unpark at depth 3 measured in the same run. Checked
 * for each timeout variant of {@link ContinuationSuspendBenchmark} that ran; a side that did not
 * run is NOT MEASURED, with the reason.
 */
final class MicroTargets {
  static final int DEPTH = 3;
  static final double LIMIT_NS = 300.0;
  static final double RATIO = 1.5;
  static final String SUBJECT = ContinuationSuspendBenchmark.class.getSimpleName();
  static final String YARDSTICK = VirtualThreadParkBenchmark.class.getSimpleName();

  /** One benchmark result: simple class name, parameters (-1 when absent), ns/op and error. */
  static final class Row {
    final String benchmark;
    final int depth;
    final long waitTimeoutMs;
    final double score;
    final double error;

    Row(String benchmark, int depth, long waitTimeoutMs, double score, double error) {
      this.benchmark = benchmark;
      this.depth = depth;
      this.waitTimeoutMs = waitTimeoutMs;
      this.score = score;
      this.error = error;
    }
  }

  private MicroTargets() {
  }

  static List<Row> rows(Collection<RunResult> results) {
    List<Row> rows = new ArrayList<>();
    for (RunResult r : results) {
      String name = r.getParams().getBenchmark();
      String simple = name.substring(0, name.lastIndexOf('.'));
      simple = simple.substring(simple.lastIndexOf('.') + 1);
      String depth = r.getParams().getParam("depth");
      String timeout = r.getParams().getParam("waitTimeoutMs");
      rows.add(new Row(simple, depth == null ? -1 : Integer.parseInt(depth),
          timeout == null ? -1L : Long.parseLong(timeout),
          r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError()));
    }
    return rows;
  }

  /**
   * The {@code # target:} lines for a run.
   *
   * @param noVirtualThreads why virtual threads were not measured (JDK before 21), or null
   */
  static List<String> check(List<Row> rows, String noVirtualThreads) {
    List<String> lines = new ArrayList<>();
    Row yardstick = null;
    for (Row r : rows) {
      if (r.benchmark.equals(YARDSTICK) && r.depth == DEPTH) {
        yardstick = r;
      }
    }
    boolean any = false;
    for (Row r : rows) {
      if (!r.benchmark.equals(SUBJECT) || r.depth != DEPTH) {
        continue;
      }
      any = true;
      String variant = r.waitTimeoutMs <= 0L ? "no timeout" : r.waitTimeoutMs + " ms timeout armed";
      String prefix = "suspend+resume at depth " + DEPTH + " (" + variant + ")";
      lines.add(verdict(prefix + " <= " + fmt(LIMIT_NS) + " ns", r.score <= LIMIT_NS,
          fmt(r.score) + " ± " + fmt(r.error) + " ns"));
      if (yardstick == null) {
        lines.add(prefix + " <= " + RATIO + "x virtual thread park/unpark: NOT MEASURED, "
            + (noVirtualThreads != null ? noVirtualThreads : YARDSTICK + " depth=" + DEPTH + " not in this run"));
      } else {
        double ratio = r.score / yardstick.score;
        lines.add(verdict(prefix + " <= " + RATIO + "x virtual thread park/unpark", ratio <= RATIO,
            String.format(Locale.ROOT, "%.2fx (%s ns vs %s ns)", ratio, fmt(r.score), fmt(yardstick.score))));
      }
    }
    if (!any) {
      lines.add("suspend+resume at depth " + DEPTH + ": NOT MEASURED, " + SUBJECT + " depth=" + DEPTH
          + " not in this run");
    }
    return lines;
  }

  private static String verdict(String target, boolean met, String figures) {
    return target + ": " + (met ? "MET" : "MISSED") + ", " + figures;
  }

  private static String fmt(double ns) {
    return String.format(Locale.ROOT, "%,.0f", ns);
  }
}
