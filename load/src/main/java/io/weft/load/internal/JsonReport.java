package io.weft.load.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** The end-of-run summary as JSON (Jackson): the run, and per operation its figures in nanoseconds. */
public final class JsonReport {
  private JsonReport() {}

  public static Map<String, Object> tree(Results r, List<Thresholds.Verdict> verdicts) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("model", r.model);
    root.put("mode", r.mode);
    root.put("scenario", r.scenario);
    root.put("startEpochMillis", r.startEpochMillis);
    root.put("seconds", r.seconds);
    root.put("info", r.info);
    root.put("count", r.totalCount());
    root.put("errors", r.totalErrors());
    root.put("users", r.users);
    Map<String, Object> ops = new LinkedHashMap<>();
    for (Results.Op op : r.ops.values()) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("count", op.latency.getTotalCount());
      o.put("rate", r.seconds <= 0 ? 0.0 : op.latency.getTotalCount() / r.seconds);
      o.put("latencyNanos", figures(op.latency));
      if (op.service != null) {
        o.put("serviceNanos", figures(op.service));
      }
      if (op.server != null) {
        o.put("serverNanos", figures(op.server));
        o.put("clientNanos", figures(op.client));
      }
      if (op.corrected != null) {
        o.put("correctedNanos", figures(op.corrected));
        o.put("expectedIntervalNanos", op.expectedIntervalNanos);
      }
      o.put("errors", op.errors);
      ops.put(op.name, o);
    }
    root.put("operations", ops);
    List<Map<String, Object>> timeline = new ArrayList<>();
    for (Results.Interval i : r.timeline) {
      Map<String, Object> t = new LinkedHashMap<>();
      t.put("start", i.startSeconds);
      t.put("seconds", i.seconds);
      t.put("count", i.count);
      t.put("errors", i.errors);
      t.put("p50", i.p50);
      t.put("p90", i.p90);
      t.put("p99", i.p99);
      t.put("max", i.max);
      if (i.connects >= 0) {
        t.put("connects", i.connects);
      }
      if (i.windowWaiting >= 0) {
        t.put("windowWaiting", i.windowWaiting);
        t.put("freedUnheard", i.freedUnheard);
      }
      if (i.windowSize >= 0) {
        t.put("window", i.windowSize);
      }
      timeline.add(t);
    }
    root.put("timeline", timeline);
    if (verdicts != null) {
      List<Map<String, Object>> th = new ArrayList<>();
      for (Thresholds.Verdict v : verdicts) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("threshold", v.threshold.text);
        t.put("actual", v.actualText);
        t.put("passed", v.passed);
        th.add(t);
      }
      root.put("thresholds", th);
    }
    return root;
  }

  static Map<String, Object> figures(Histogram h) {
    Map<String, Object> f = new LinkedHashMap<>();
    long n = h.getTotalCount();
    f.put("count", n);
    f.put("min", n == 0 ? 0 : h.getMinValue());
    f.put("mean", n == 0 ? 0.0 : h.getMean());
    f.put("p50", h.getValueAtPercentile(50));
    f.put("p90", h.getValueAtPercentile(90));
    f.put("p99", h.getValueAtPercentile(99));
    f.put("p99.9", h.getValueAtPercentile(99.9));
    f.put("max", h.getMaxValue());
    return f;
  }

  public static void write(Results r, List<Thresholds.Verdict> verdicts, File file) throws IOException {
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file, tree(r, verdicts));
  }
}
