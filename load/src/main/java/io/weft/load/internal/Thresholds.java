package io.weft.load.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * Pass/fail conditions on a run's figures, for CI: {@code [OPERATION:]METRIC OP VALUE}.
 *
 * <table>
 *   <caption>Metrics</caption>
 *   <tr><th>metric</th><th>value</th><th>example</th></tr>
 *   <tr><td>{@code min p50 p90 p99 p99.9 max mean}, any {@code pNN.N}</td><td>a duration</td><td>{@code GET:p99<20ms}</td></tr>
 *   <tr><td>{@code errors}</td><td>a count, or a percentage of the operations done and failed</td><td>{@code errors<0.1%}</td></tr>
 *   <tr><td>{@code count}, {@code rate}</td><td>operations, operations per second</td><td>{@code rate>=1000}</td></tr>
 * </table>
 *
 * <p>Without an operation a threshold applies to all operations together. The latencies are
 * the run's main figures: from the intended start in the open model, raw in the closed one.
 */
public final class Thresholds {
  private static final Pattern SPEC = Pattern.compile(
      "(?:([^:<>=\\s]+):)?\\s*([a-zA-Z]+|p[0-9.]+)\\s*(<=|>=|<|>)\\s*([0-9.]+)\\s*([a-zµ%]*)");

  private Thresholds() {}

  /** One parsed threshold. */
  public static final class Threshold {
    public final String text;
    final String operation;
    final String metric;
    final String comparison;
    final double value;
    final boolean percent;

    Threshold(String text, String operation, String metric, String comparison, double value, boolean percent) {
      this.text = text;
      this.operation = operation;
      this.metric = metric;
      this.comparison = comparison;
      this.value = value;
      this.percent = percent;
    }
  }

  /** A threshold, what the run did, and whether that passes. */
  public static final class Verdict {
    public final Threshold threshold;
    public final String actualText;
    public final boolean passed;

    Verdict(Threshold threshold, String actualText, boolean passed) {
      this.threshold = threshold;
      this.actualText = actualText;
      this.passed = passed;
    }

    @Override
    public String toString() {
      return (passed ? "PASSED " : "FAILED ") + threshold.text + " (actual " + actualText + ")";
    }
  }

  /** @throws IllegalArgumentException naming the bad threshold */
  public static Threshold parse(String text) {
    Matcher m = SPEC.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("bad threshold " + text + ": expected e.g. GET:p99<20ms or errors<0.1%");
    }
    String metric = m.group(2).toLowerCase(Locale.ROOT);
    String unit = m.group(5);
    double value = Double.parseDouble(m.group(4));
    boolean percent = "%".equals(unit);
    boolean latency = metric.startsWith("p") || metric.equals("min") || metric.equals("max") || metric.equals("mean");
    if (latency) {
      if (percent) {
        throw new IllegalArgumentException("bad threshold " + text + ": a latency takes a duration, e.g. 20ms");
      }
      value = Durations.parseNanos(m.group(4) + (unit.isEmpty() ? "ms" : unit));
      if (metric.startsWith("p")) {
        percentile(metric, text);
      }
    } else if (metric.equals("errors")) {
      if (!unit.isEmpty() && !percent) {
        throw new IllegalArgumentException("bad threshold " + text + ": errors take a count or a percentage");
      }
    } else if (metric.equals("count") || metric.equals("rate")) {
      if (!unit.isEmpty()) {
        throw new IllegalArgumentException("bad threshold " + text + ": " + metric + " takes a plain number");
      }
    } else {
      throw new IllegalArgumentException("bad threshold " + text + ": unknown metric " + metric
          + " (min, mean, max, pNN, errors, count, rate)");
    }
    return new Threshold(text, m.group(1), metric, m.group(3), value, percent);
  }

  private static double percentile(String metric, String text) {
    try {
      double p = Double.parseDouble(metric.substring(1));
      if (p <= 0 || p > 100) {
        throw new IllegalArgumentException("bad threshold " + text + ": percentile out of (0, 100]");
      }
      return p;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad threshold " + text + ": bad percentile " + metric, e);
    }
  }

  public static List<Verdict> evaluate(List<Threshold> thresholds, Results r) {
    List<Verdict> out = new ArrayList<>();
    for (Threshold t : thresholds) {
      Histogram h;
      long errors;
      if (t.operation == null) {
        h = r.allLatency();
        errors = r.totalErrors();
      } else {
        Results.Op op = r.ops.get(t.operation);
        h = op == null ? new Histogram(3) : op.latency;
        errors = op == null ? 0 : op.errorCount();
      }
      double actual;
      String actualText;
      long n = h.getTotalCount();
      switch (t.metric) {
        case "errors":
          if (t.percent) {
            actual = n + errors == 0 ? 0 : 100.0 * errors / (n + errors);
            actualText = String.format(Locale.ROOT, "%.3f%% (%d of %d)", actual, errors, n + errors);
          } else {
            actual = errors;
            actualText = Long.toString(errors);
          }
          break;
        case "count":
          actual = n;
          actualText = Long.toString(n);
          break;
        case "rate":
          actual = r.seconds <= 0 ? 0 : n / r.seconds;
          actualText = String.format(Locale.ROOT, "%.1f/s", actual);
          break;
        default:
          if (n == 0) {
            out.add(new Verdict(t, "no operations", false));
            continue;
          }
          long v = t.metric.equals("min") ? h.getMinValue() : t.metric.equals("max") ? h.getMaxValue()
              : t.metric.equals("mean") ? (long) h.getMean() : h.getValueAtPercentile(percentile(t.metric, t.text));
          actual = v;
          actualText = Durations.format(v);
      }
      out.add(new Verdict(t, actualText, compare(actual, t.comparison, t.value)));
    }
    return out;
  }

  private static boolean compare(double actual, String comparison, double limit) {
    switch (comparison) {
      case "<":
        return actual < limit;
      case "<=":
        return actual <= limit;
      case ">":
        return actual > limit;
      default:
        return actual >= limit;
    }
  }
}
