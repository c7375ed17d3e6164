package io.weft.load.internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The end-of-run report as one self-contained HTML file: the summary table, and three charts
 * drawn here as inline SVG (latency percentiles over time, throughput over time, the latency
 * percentile distribution per operation). It loads nothing from anywhere. A short inline script
 * counts the chart lines the browser laid out into {@code body[data-rendered]}, which is how a
 * headless browser can tell that the page really rendered.
 */
public final class HtmlReport {
  private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
  private static final int W = 860;
  private static final int H = 320;
  private static final int LEFT = 70;
  private static final int RIGHT = 150;
  private static final int TOP = 30;
  private static final int BOTTOM = 45;

  private HtmlReport() {}

  /** One line of a chart. */
  static final class Series {
    final String name;
    final double[] xs;
    final double[] ys;

    Series(String name, double[] xs, double[] ys) {
      this.name = name;
      this.xs = xs;
      this.ys = ys;
    }
  }

  public static void write(Results r, List<Thresholds.Verdict> verdicts, File file) throws IOException {
    Files.write(file.toPath(), render(r, verdicts).getBytes(StandardCharsets.UTF_8));
  }

  public static String render(Results r, List<Thresholds.Verdict> verdicts) {
    StringBuilder b = new StringBuilder();
    b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>weft-load report</title>\n<style>\n")
        .append("body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}")
        .append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}")
        .append("td:first-child{text-align:left}.fail{color:#b00;font-weight:bold}.pass{color:#070}")
        .append("svg{display:block;margin:1em 0}svg text{font-size:12px;font-family:sans-serif}\n")
        .append("</style></head><body>\n");
    b.append("<h1>weft-load report</h1>\n<p>").append(esc(r.model)).append(" model, ").append(esc(r.mode)).append(", ")
        .append(esc(r.scenario)).append(String.format(Locale.ROOT, ", %.1f s", r.seconds));
    for (Map.Entry<String, String> e : r.info.entrySet()) {
      b.append(", ").append(esc(e.getKey())).append(' ').append(esc(e.getValue()));
    }
    b.append("</p>\n");
    b.append("<h2>").append(r.open() ? "Latency from each iteration's intended start" : "Latency (raw)").append("</h2>\n");
    table(b, r, 0);
    if (r.open()) {
      b.append("<h2>Service time</h2>\n");
      table(b, r, 1);
    } else {
      b.append("<h2>Latency corrected for coordinated omission</h2>\n<p>HdrHistogram's correction, each operation"
          + " with its expected interval per user (").append(r.expectedIntervalNanos >= 0
          ? esc(Durations.format(r.expectedIntervalNanos)) : "users &times; run length / count").append(").</p>\n");
      table(b, r, 2);
    }
    errors(b, r);
    if (verdicts != null && !verdicts.isEmpty()) {
      b.append("<h2>Thresholds</h2>\n<ul>\n");
      for (Thresholds.Verdict v : verdicts) {
        b.append("<li class=\"").append(v.passed ? "pass" : "fail").append("\">").append(v.passed ? "PASSED " : "FAILED ")
            .append(esc(v.threshold.text)).append(" (actual ").append(esc(v.actualText)).append(")</li>\n");
      }
      b.append("</ul>\n");
    }
    // Interval figures drawn as steps: each holds from its interval's start to its end.
    int n = r.timeline.size();
    double[] t = new double[2 * n];
    double[] p50 = new double[2 * n];
    double[] p90 = new double[2 * n];
    double[] p99 = new double[2 * n];
    double[] max = new double[2 * n];
    double[] rate = new double[2 * n];
    double[] errs = new double[2 * n];
    for (int i = 0; i < n; i++) {
      Results.Interval iv = r.timeline.get(i);
      for (int k = 0; k < 2; k++) {
        int j = 2 * i + k;
        t[j] = iv.startSeconds + (k == 0 ? 0 : iv.seconds);
        p50[j] = iv.p50 / 1e6;
        p90[j] = iv.p90 / 1e6;
        p99[j] = iv.p99 / 1e6;
        max[j] = iv.max / 1e6;
        rate[j] = iv.rate();
        errs[j] = iv.seconds <= 0 ? 0 : iv.errors / iv.seconds;
      }
    }
    b.append("<h2>Latency percentiles over time</h2>\n");
    chart(b, "percentiles", "elapsed (s)", "latency (ms)", List.of(new Series("p50", t, p50), new Series("p90", t, p90),
        new Series("p99", t, p99), new Series("max", t, max)), false);
    b.append("<h2>Throughput over time</h2>\n");
    chart(b, "throughput", "elapsed (s)", "per second", List.of(new Series("ops/s", t, rate),
        new Series("errors/s", t, errs)), false);
    b.append("<h2>Latency percentile distribution</h2>\n");
    List<Series> dist = new ArrayList<>();
    for (Results.Op op : r.ops.values()) {
      if (op.latency.getTotalCount() > 0) {
        dist.add(distribution(op.name, op.latency));
      }
    }
    chart(b, "distribution", "percentile", "latency (ms)", dist, true);
    b.append("<script>\n(function(){var n=0;document.querySelectorAll('svg polyline').forEach(function(p){")
        .append("var bb=p.getBBox();if(bb.width>0||bb.height>0){n++;}});")
        .append("document.body.setAttribute('data-rendered',String(n));})();\n</script>\n");
    b.append("</body></html>\n");
    return b.toString();
  }

  /** Percentile (as log10(1/(1-q)), so 90% is 1, 99% is 2) against latency in ms. */
  static Series distribution(String name, Histogram h) {
    List<double[]> points = new ArrayList<>();
    for (HistogramIterationValue v : h.percentiles(5)) {
      double q = v.getPercentileLevelIteratedTo() / 100.0;
      if (q >= 1.0) {
        break;
      }
      points.add(new double[] {Math.log10(1 / (1 - q)), v.getValueIteratedTo() / 1e6});
    }
    points.add(new double[] {Math.max(points.isEmpty() ? 0 : points.get(points.size() - 1)[0], Math.log10(Math.max(1, h.getTotalCount()))),
        h.getMaxValue() / 1e6});
    double[] xs = new double[points.size()];
    double[] ys = new double[points.size()];
    for (int i = 0; i < xs.length; i++) {
      xs[i] = points.get(i)[0];
      ys[i] = points.get(i)[1];
    }
    return new Series(name, xs, ys);
  }

  private static void table(StringBuilder b, Results r, int which) {
    b.append("<table><tr><th>operation</th><th>count</th><th>rate/s</th><th>min</th><th>p50</th><th>p90</th>")
        .append("<th>p99</th><th>p99.9</th><th>max</th><th>errors</th></tr>\n");
    for (Results.Op op : r.ops.values()) {
      Histogram h = which == 0 ? op.latency : which == 1 ? op.service : op.corrected;
      if (h == null) {
        continue;
      }
      long n = h.getTotalCount();
      b.append("<tr><td>").append(esc(op.name)).append("</td><td>").append(n).append("</td><td>")
          .append(String.format(Locale.ROOT, "%.1f", r.seconds <= 0 ? 0.0 : op.latency.getTotalCount() / r.seconds));
      for (double p : new double[] {-1, 50, 90, 99, 99.9, 100}) {
        String v = n == 0 ? "-" : Durations.format(p < 0 ? h.getMinValue() : p >= 100 ? h.getMaxValue() : h.getValueAtPercentile(p));
        b.append("</td><td>").append(esc(v));
      }
      b.append("</td><td>").append(op.errorCount()).append("</td></tr>\n");
    }
    b.append("</table>\n");
  }

  private static void errors(StringBuilder b, Results r) {
    b.append("<h2>Errors</h2>\n");
    if (r.totalErrors() == 0) {
      b.append("<p>none</p>\n");
      return;
    }
    b.append("<table><tr><th>operation</th><th>exception</th><th>count</th></tr>\n");
    for (Results.Op op : r.ops.values()) {
      for (Map.Entry<String, Long> e : op.errors.entrySet()) {
        b.append("<tr><td>").append(esc(op.name)).append("</td><td>").append(esc(e.getKey())).append("</td><td>")
            .append(e.getValue()).append("</td></tr>\n");
      }
    }
    b.append("</table>\n");
  }

  static void chart(StringBuilder b, String id, String xLabel, String yLabel, List<Series> series, boolean percentileAxis) {
    double minX = Double.MAX_VALUE;
    double maxX = -Double.MAX_VALUE;
    double maxY = 0;
    for (Series s : series) {
      for (int i = 0; i < s.xs.length; i++) {
        minX = Math.min(minX, s.xs[i]);
        maxX = Math.max(maxX, s.xs[i]);
        maxY = Math.max(maxY, s.ys[i]);
      }
    }
    if (minX > maxX) {
      minX = 0;
      maxX = 1;
    }
    if (percentileAxis) {
      minX = 0;
      maxX = Math.max(maxX, 2);
    } else if (minX > 0 && minX < maxX / 2) {
      minX = 0;
    }
    if (maxX <= minX) {
      maxX = minX + 1;
    }
    maxY = niceCeiling(maxY);
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    b.append("<svg id=\"").append(id).append("\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(W)
        .append("\" height=\"").append(H).append("\" viewBox=\"0 0 ").append(W).append(' ').append(H).append("\">\n");
    b.append("<rect x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"").append(pw).append("\" height=\"")
        .append(ph).append("\" fill=\"#fff\" stroke=\"#999\"/>\n");
    for (int i = 0; i <= 5; i++) {
      double v = maxY * i / 5;
      double y = TOP + ph - ph * i / 5.0;
      b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>", LEFT, y, LEFT + pw, y))
          .append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT - 6, y + 4, num(v)));
    }
    if (percentileAxis) {
      for (int k = 0; k <= (int) Math.ceil(maxX); k++) {
        double x = LEFT + pw * (k - minX) / (maxX - minX);
        if (x > LEFT + pw + 0.5) {
          break;
        }
        String label = (k == 0 ? "0" : k == 1 ? "90" : k == 2 ? "99" : "99." + "9".repeat(k - 2)) + "%";
        b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", x, TOP + ph + 16, label));
      }
    } else {
      double step = niceCeiling((maxX - minX) / 6);
      for (double v = Math.ceil(minX / step) * step; v <= maxX + step * 1e-9; v += step) {
        double x = LEFT + pw * (v - minX) / (maxX - minX);
        b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", x, TOP + ph + 16, num(v)));
      }
    }
    b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", LEFT + pw / 2, H - 8, esc(xLabel)));
    b.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">%s</text>%n",
        TOP + ph / 2, TOP + ph / 2, esc(yLabel)));
    for (int s = 0; s < series.size(); s++) {
      Series line = series.get(s);
      String color = COLORS[s % COLORS.length];
      b.append("<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"").append(color).append("\" points=\"");
      for (int i = 0; i < line.xs.length; i++) {
        double x = LEFT + pw * (line.xs[i] - minX) / (maxX - minX);
        double y = TOP + ph - (maxY <= 0 ? 0 : ph * line.ys[i] / maxY);
        b.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
      }
      b.append("\"/>\n");
      int ly = TOP + 14 + 18 * s;
      b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>",
          LEFT + pw + 10, ly - 4, LEFT + pw + 30, ly - 4, color))
          .append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", LEFT + pw + 36, ly, esc(line.name)));
    }
    b.append("</svg>\n");
  }

  private static double niceCeiling(double v) {
    if (v <= 0) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
      if (m * p >= v) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private static String num(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return Math.abs(v) >= 10 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.3g", v);
  }

  static String esc(String s) {
    if (s == null) {
      return "";
    }
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
