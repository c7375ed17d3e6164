package io.weft.perf.peers;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Writes a peers run into a folder: {@code peers.md} (the tables, ratios, targets and each
 * round's load), {@code peers.csv} (one line per client run, Jackson's CSV mapper),
 * {@code peers.json} (environment, rows, medians, ratios, targets; Jackson) and the charts
 * {@code peers-throughput.png} and {@code peers-cpu.png} (XChart, median per N and client).
 */
final class PeersFiles {
  static final String MARKDOWN = "peers.md";
  static final String CSV = "peers.csv";
  static final String JSON = "peers.json";
  static final String THROUGHPUT_CHART = "peers-throughput.png";
  static final String CPU_CHART = "peers-cpu.png";

  private PeersFiles() {
  }

  static List<Path> write(Path dir, Map<String, String> environment, List<PeersRow> rows, PeersSummary summary,
      List<PeersTargets.Verdict> verdicts) throws IOException {
    Files.createDirectories(dir);
    List<Path> files = new ArrayList<>();
    Path md = dir.resolve(MARKDOWN);
    Files.writeString(md, markdown(environment, rows, summary, verdicts), StandardCharsets.UTF_8);
    files.add(md);

    CsvMapper csv = new CsvMapper();
    CsvSchema schema = csv.schemaFor(PeersRow.class).withHeader();
    Path csvFile = dir.resolve(CSV);
    csv.writer(schema).writeValue(csvFile.toFile(), rows);
    files.add(csvFile);

    Map<String, Object> json = new LinkedHashMap<>();
    json.put("environment", environment);
    json.put("rows", rows);
    json.put("medians", summary.medians);
    json.put("ratios", summary.ratios);
    json.put("targets", verdicts);
    Path jsonFile = dir.resolve(JSON);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(jsonFile.toFile(), json);
    files.add(jsonFile);

    System.setProperty("java.awt.headless", "true");
    if (chart(dir.resolve(THROUGHPUT_CHART), "Round trips/s (median over rounds)", "round trips/s", summary,
        m -> m.roundTripsPerSecond)) {
      files.add(dir.resolve(THROUGHPUT_CHART));
    }
    if (chart(dir.resolve(CPU_CHART), "Client CPU per round trip (median over rounds)", "CPU µs per round trip",
        summary, m -> m.cpuMicrosPerRoundTrip)) {
      files.add(dir.resolve(CPU_CHART));
    }
    return files;
  }

  static String markdown(Map<String, String> environment, List<PeersRow> rows, PeersSummary summary,
      List<PeersTargets.Verdict> verdicts) {
    StringBuilder md = new StringBuilder();
    md.append("# Peers benchmark\n\n");
    for (Map.Entry<String, String> e : environment.entrySet()) {
      md.append("- ").append(e.getKey()).append(": ").append(e.getValue()).append('\n');
    }
    md.append("\n## Medians over the rounds\n\n");
    md.append("| N | client | rt/s | p50 µs | p99 µs | CPU µs/rt | ctx sw/rt | of them voluntary | JIT % of CPU"
        + " | peak heap after GC MB | peak threads | clean rounds | note |\n");
    md.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (PeersSummary.Median m : summary.medians) {
      md.append("| ").append(String.format(Locale.ROOT, "%,d", m.sessions)).append(" | ").append(m.client)
          .append(" | ").append(num(m.roundTripsPerSecond, "%,.0f"))
          .append(" | ").append(num(m.p50Micros, "%,.0f"))
          .append(" | ").append(num(m.p99Micros, "%,.0f"))
          .append(" | ").append(num(m.cpuMicrosPerRoundTrip, "%.2f"))
          .append(" | ").append(num(m.contextSwitchesPerRoundTrip, "%.3f"))
          .append(" | ").append(num(m.voluntaryContextSwitchesPerRoundTrip, "%.3f"))
          .append(" | ").append(num(m.jitCpuPct, "%.1f"))
          .append(" | ").append(num(m.peakHeapAfterGcMb, "%,.1f"))
          .append(" | ").append(num(m.peakThreads, "%,.0f"))
          .append(" | ").append(m.cleanRounds).append('/').append(m.rounds)
          .append(" | ").append(m.note == null ? "" : escape(m.note)).append(" |\n");
    }
    md.append("\n## Spread over the rounds\n\n(largest - smallest) / median of the clean rounds, in %: a"
        + " difference between two clients, or two builds, smaller than this is noise.\n\n");
    md.append("| N | client | rt/s spread % | CPU/rt spread % |\n|---:|---|---:|---:|\n");
    for (PeersSummary.Median m : summary.medians) {
      md.append("| ").append(String.format(Locale.ROOT, "%,d", m.sessions)).append(" | ").append(m.client)
          .append(" | ").append(num(m.roundTripsPerSecondSpreadPct, "%.1f"))
          .append(" | ").append(num(m.cpuSpreadPct, "%.1f")).append(" |\n");
    }
    md.append("\n## Ratios within a round (median over the rounds; per round in brackets)\n\n");
    md.append("| N | ratio | of | median | per round |\n|---:|---|---|---:|---|\n");
    for (PeersSummary.Ratio r : summary.ratios) {
      List<String> per = new ArrayList<>();
      for (Double d : r.perRound) {
        per.add(num(d, "%.2f"));
      }
      md.append("| ").append(String.format(Locale.ROOT, "%,d", r.sessions)).append(" | ").append(r.name)
          .append(" | ").append(r.measure).append(" | ").append(num(r.median, "%.2fx"))
          .append(" | [").append(String.join(", ", per)).append("] |\n");
    }
    md.append("\n## Targets\n\n");
    for (PeersTargets.Verdict v : verdicts) {
      md.append("- ").append(v.target).append(": **").append(v.verdict).append("** (").append(v.figure)
          .append(")\n");
    }
    md.append("\n## Rounds (order run, load average at start and end)\n\n");
    md.append("| N | round | order | load at start | load at end |\n|---:|---:|---|---|---|\n");
    Map<String, List<PeersRow>> byRound = new LinkedHashMap<>();
    for (PeersRow r : rows) {
      byRound.computeIfAbsent(r.sessions + "/" + r.round, k -> new ArrayList<>()).add(r);
    }
    for (List<PeersRow> round : byRound.values()) {
      List<String> order = new ArrayList<>();
      for (PeersRow r : round) {
        if (!PeersRow.SKIPPED.equals(r.status)) {
          order.add(r.client);
        }
      }
      PeersRow first = round.get(0);
      md.append("| ").append(String.format(Locale.ROOT, "%,d", first.sessions)).append(" | ").append(first.round)
          .append(" | ").append(String.join(", ", order)).append(" | ").append(first.loadAtRoundStart)
          .append(" | ").append(first.loadAtRoundEnd).append(" |\n");
    }
    return md.toString();
  }

  private static boolean chart(Path file, String title, String yTitle, PeersSummary summary,
      Function<PeersSummary.Median, Double> figure) throws IOException {
    Set<Integer> sessions = new LinkedHashSet<>();
    Map<String, Map<Integer, Double>> series = new LinkedHashMap<>();
    for (PeersSummary.Median m : summary.medians) {
      sessions.add(m.sessions);
      Double value = figure.apply(m);
      if (value != null) {
        series.computeIfAbsent(m.client, c -> new LinkedHashMap<>()).put(m.sessions, value);
      }
    }
    if (series.isEmpty()) {
      return false;
    }
    CategoryChart chart = new CategoryChartBuilder().width(1000).height(600).title(title)
        .xAxisTitle("sessions in flight (N)").yAxisTitle(yTitle).build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setYAxisDecimalPattern("#,###.##");
    List<String> xs = new ArrayList<>();
    for (int n : sessions) {
      xs.add(String.format(Locale.ROOT, "%,d", n));
    }
    for (Map.Entry<String, Map<Integer, Double>> s : series.entrySet()) {
      List<Double> ys = new ArrayList<>();
      for (int n : sessions) {
        Double v = s.getValue().get(n);
        ys.add(v == null ? 0.0 : v);
      }
      chart.addSeries(s.getKey(), xs, ys);
    }
    String name = file.getFileName().toString();
    BitmapEncoder.saveBitmap(chart, file.resolveSibling(name.substring(0, name.length() - ".png".length()))
        .toString(), BitmapEncoder.BitmapFormat.PNG);
    return true;
  }

  private static String num(Double value, String format) {
    return value == null ? "-" : String.format(Locale.ROOT, format, value);
  }

  private static String escape(String text) {
    String oneLine = text.replace('\n', ' ').replace("|", "\\|");
    return oneLine.length() > 160 ? oneLine.substring(0, 160) + "…" : oneLine;
  }
}
