package io.weft.perf.scaling;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a {@link Scaling} run as PNG line charts with XChart: events/s and p99 exchange latency
 * against concurrent sessions (log scale), one line per mode, one pair of charts per transport.
 * Only rows where every session completed are drawn.
 */
public final class ScalingCharts {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 560;

  private ScalingCharts() {
  }

  /** Writes the charts into {@code dir} and returns the files written. */
  public static List<Path> write(Path dir, List<ScalingResult> results) throws IOException {
    System.setProperty("java.awt.headless", "true");
    Map<String, List<ScalingResult>> byTransport = new LinkedHashMap<>();
    for (ScalingResult r : results) {
      byTransport.computeIfAbsent(r.transport, t -> new ArrayList<>()).add(r);
    }
    List<Path> files = new ArrayList<>();
    for (Map.Entry<String, List<ScalingResult>> e : byTransport.entrySet()) {
      String transport = e.getKey();
      Path events = dir.resolve("events-per-second-" + transport + ".png");
      if (draw(events, "Throughput, " + transport, "events/s (writes + reads)", false,
          e.getValue(), r -> r.eventsPerSecond)) {
        files.add(events);
      }
      Path p99 = dir.resolve("p99-latency-" + transport + ".png");
      if (draw(p99, "p99 exchange latency, " + transport, "p99 latency per exchange (µs)", true,
          e.getValue(), r -> r.p99Micros)) {
        files.add(p99);
      }
    }
    return files;
  }

  private static boolean draw(Path file, String title, String yTitle, boolean logY,
      List<ScalingResult> rows, ToDoubleFunction<ScalingResult> y) throws IOException {
    Map<String, List<double[]>> series = new LinkedHashMap<>();
    for (ScalingResult r : rows) {
      double value = y.applyAsDouble(r);
      if (!r.ranCleanly() || Double.isNaN(value) || value <= 0) {
        continue;
      }
      series.computeIfAbsent(r.mode, m -> new ArrayList<>()).add(new double[] {r.sessions, value});
    }
    if (series.isEmpty()) {
      return false;
    }
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle("concurrent sessions (log scale)").yAxisTitle(yTitle).build();
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setYAxisLogarithmic(logY);
    if (!logY) {
      // From zero: a throughput axis that starts near the smallest figure exaggerates gaps.
      chart.getStyler().setYAxisMin(0.0);
    }
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    chart.getStyler().setMarkerSize(7);
    chart.getStyler().setXAxisDecimalPattern("#,###");
    chart.getStyler().setYAxisDecimalPattern("#,###");
    for (Map.Entry<String, List<double[]>> s : series.entrySet()) {
      List<double[]> points = s.getValue();
      points.sort((a, b) -> Double.compare(a[0], b[0]));
      double[] xs = new double[points.size()];
      double[] ys = new double[points.size()];
      for (int i = 0; i < xs.length; i++) {
        xs[i] = points.get(i)[0];
        ys[i] = points.get(i)[1];
      }
      XYSeries line = chart.addSeries(s.getKey(), xs, ys);
      line.setMarker(SeriesMarkers.CIRCLE);
    }
    String name = file.getFileName().toString();
    String base = name.substring(0, name.length() - ".png".length());
    BitmapEncoder.saveBitmap(chart, file.resolveSibling(base).toString(),
        BitmapEncoder.BitmapFormat.PNG);
    return true;
  }
}
