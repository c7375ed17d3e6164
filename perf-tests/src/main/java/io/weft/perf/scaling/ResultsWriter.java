package io.weft.perf.scaling;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes {@link ScalingResult}s as CSV (one header line, RFC 4180 quoting) and as JSON (an
 * object with the run's environment and a {@code results} array), both through Jackson. Not measured figures are
 * empty in CSV and {@code null} in JSON.
 */
public final class ResultsWriter {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Quotes a field only where RFC 4180 needs it (a comma, a quote, a line break). */
  private static final CsvMapper CSV = CsvMapper.builder()
      .enable(CsvGenerator.Feature.STRICT_CHECK_FOR_QUOTING).build();
  static final String[] COLUMNS = {
      "transport", "mode", "sessions", "completed", "failed", "connect_ms", "wall_ms", "ideal_ms", "x_ideal",
      "events_per_s", "peak_threads", "heap_bytes_per_session", "p50_us", "p99_us", "max_us",
      "note"};

  private ResultsWriter() {
  }

  /** Writes one header line and one line per result, through Jackson's CSV writer. */
  public static void writeCsv(Path file, List<ScalingResult> results) throws IOException {
    CsvSchema.Builder schema = CsvSchema.builder().setUseHeader(true).setLineSeparator("\r\n");
    for (String column : COLUMNS) {
      schema.addColumn(column);
    }
    List<List<String>> rows = new ArrayList<>();
    for (ScalingResult r : results) {
      List<String> row = new ArrayList<>();
      for (Object value : values(r)) {
        String text = format(value);
        row.add(text == null ? "" : text);
      }
      rows.add(row);
    }
    CSV.writer(schema.build()).writeValue(file.toFile(), rows);
  }

  /**
   * Writes {@code {"environment": {...}, "results": [{...}, ...]}}, through Jackson;
   * {@code environment}'s values are JSON strings, figures numbers with three decimals.
   */
  public static void writeJson(Path file, Map<String, String> environment,
      List<ScalingResult> results) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode env = root.putObject("environment");
    environment.forEach(env::put);
    ArrayNode rows = root.putArray("results");
    for (ScalingResult r : results) {
      ObjectNode row = rows.addObject();
      Object[] values = values(r);
      for (int i = 0; i < values.length; i++) {
        Object value = values[i];
        if (value instanceof Double) {
          double d = (Double) value;
          if (Double.isNaN(d) || Double.isInfinite(d)) {
            row.putNull(COLUMNS[i]);
          } else {
            row.put(COLUMNS[i], BigDecimal.valueOf(d).setScale(3, RoundingMode.HALF_UP));
          }
        } else if (value instanceof Integer) {
          row.put(COLUMNS[i], (Integer) value);
        } else if (value == null) {
          row.putNull(COLUMNS[i]);
        } else {
          row.put(COLUMNS[i], value.toString());
        }
      }
    }
    JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), root);
  }

  private static Object[] values(ScalingResult r) {
    return new Object[] {
        r.transport, r.mode, r.sessions, r.completed, r.failed, r.connectMs, r.wallMs, r.idealMs,
        r.timesIdeal(), r.eventsPerSecond, r.peakThreads < 0 ? null : r.peakThreads,
        r.heapBytesPerSession, r.p50Micros, r.p99Micros, r.maxMicros, r.note};
  }

  /** Numbers without locale or exponent surprises; null for not measured. */
  private static String format(Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof Double) {
      double d = (Double) value;
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        return null;
      }
      return String.format(Locale.ROOT, "%.3f", d);
    }
    return value.toString();
  }
}
