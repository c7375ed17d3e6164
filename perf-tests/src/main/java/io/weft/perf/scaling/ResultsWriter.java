package io.weft.perf.scaling;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes {@link ScalingResult}s as CSV (one header line, RFC 4180 quoting) and as JSON (an
 * object with the run's environment and a {@code results} array). Not measured figures are
 * empty in CSV and {@code null} in JSON.
 */
public final class ResultsWriter {
  static final String[] COLUMNS = {
      "transport", "mode", "sessions", "completed", "failed", "connect_ms", "wall_ms", "ideal_ms", "x_ideal",
      "events_per_s", "peak_threads", "heap_bytes_per_session", "p50_us", "p99_us", "max_us",
      "note"};

  private ResultsWriter() {
  }

  public static void writeCsv(Path file, List<ScalingResult> results) throws IOException {
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      out.write(String.join(",", COLUMNS));
      out.write("\r\n");
      for (ScalingResult r : results) {
        Object[] values = values(r);
        for (int i = 0; i < values.length; i++) {
          if (i > 0) {
            out.write(',');
          }
          out.write(csvField(values[i]));
        }
        out.write("\r\n");
      }
    }
  }

  /**
   * Writes {@code {"environment": {...}, "results": [{...}, ...]}}; {@code environment}'s values
   * are written as JSON strings.
   */
  public static void writeJson(Path file, Map<String, String> environment,
      List<ScalingResult> results) throws IOException {
    StringBuilder json = new StringBuilder(256 + results.size() * 400);
    json.append("{\n  \"environment\": {");
    boolean first = true;
    for (Map.Entry<String, String> e : environment.entrySet()) {
      json.append(first ? "\n    " : ",\n    ");
      first = false;
      jsonString(json, e.getKey());
      json.append(": ");
      jsonString(json, e.getValue());
    }
    json.append(first ? "},\n" : "\n  },\n");
    json.append("  \"results\": [");
    for (int r = 0; r < results.size(); r++) {
      json.append(r == 0 ? "\n    {" : ",\n    {");
      Object[] values = values(results.get(r));
      for (int i = 0; i < values.length; i++) {
        if (i > 0) {
          json.append(", ");
        }
        jsonString(json, COLUMNS[i]);
        json.append(": ");
        jsonValue(json, values[i]);
      }
      json.append('}');
    }
    json.append(results.isEmpty() ? "]\n}\n" : "\n  ]\n}\n");
    Files.writeString(file, json, StandardCharsets.UTF_8);
  }

  private static Object[] values(ScalingResult r) {
    return new Object[] {
        r.transport, r.mode, r.sessions, r.completed, r.failed, r.connectMs, r.wallMs, r.idealMs,
        r.timesIdeal(), r.eventsPerSecond, r.peakThreads < 0 ? null : r.peakThreads,
        r.heapBytesPerSession, r.p50Micros, r.p99Micros, r.maxMicros, r.note};
  }

  static String csvField(Object value) {
    String text = format(value);
    if (text == null) {
      return "";
    }
    if (text.indexOf(',') < 0 && text.indexOf('"') < 0 && text.indexOf('\n') < 0
        && text.indexOf('\r') < 0) {
      return text;
    }
    return '"' + text.replace("\"", "\"\"") + '"';
  }

  private static void jsonValue(StringBuilder json, Object value) {
    String text = format(value);
    if (text == null) {
      json.append("null");
    } else if (value instanceof Number) {
      json.append(text);
    } else {
      jsonString(json, text);
    }
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

  static void jsonString(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"':
          json.append("\\\"");
          break;
        case '\\':
          json.append("\\\\");
          break;
        case '\n':
          json.append("\\n");
          break;
        case '\r':
          json.append("\\r");
          break;
        case '\t':
          json.append("\\t");
          break;
        default:
          if (c < 0x20) {
            json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            json.append(c);
          }
      }
    }
    json.append('"');
  }
}
