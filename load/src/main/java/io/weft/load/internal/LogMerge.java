package io.weft.load.internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * Combines the interval logs of a run's shards into one {@link Results}: histograms of the
 * same operation are added, interval by interval (intervals aligned by their offset from each
 * shard's own start, to the second), errors and users summed. The logs must come from runs of
 * one model; each shard's own start is its time 0. Each interval's errors come from the
 * {@code #weft-load interval-errors} comment lines beside the histograms, so the merged timeline
 * shows when errors happened, not only how many there were; so do its connects and connect
 * window ({@code #weft-load interval-connects}: connects and places freed unheard summed, users
 * waiting for a place summed over the shards that have a window). A log written before those lines
 * (weft-load before 2026-11-27) says nothing of its connects: merged with any such log, the
 * timeline's connects and window figures are unknown (-1, left out of the JSON), not the other
 * shards' alone, which would read as the whole run's. The summary's {@code connect window} line
 * is the shards' windows together ({@code #weft-load window}, written at each shard's end): its
 * counts summed, its sizes as over several servers (the largest window's at the end, the largest
 * and smallest any took).
 */
public final class LogMerge {
  private LogMerge() {}

  public static Results merge(List<File> logs) throws IOException {
    if (logs.isEmpty()) {
      throw new IllegalArgumentException("no interval logs to merge");
    }
    Results r = new Results();
    Map<String, TreeMap<Long, Histogram>> byTag = new TreeMap<>();
    // Each interval's length, from its histograms' start and end stamps (a partial last interval
    // is shorter than a second); a second that only the comment lines cover (errors or connects
    // and no histogram) counts as 1 s.
    Map<Long, Double> lengths = new HashMap<>();
    Map<String, TreeMap<Long, Long>> intervalErrors = new HashMap<>();
    TreeMap<Long, Long> allErrors = new TreeMap<>();
    TreeMap<Long, long[]> connects = new TreeMap<>();
    long expected = -1;
    boolean first = true;
    boolean connectsKnown = true;
    WindowFigures window = null;
    // Each shard's window that its log names: its place among the logs (from 1), configuration, servers.
    List<Integer> windowShards = new ArrayList<>();
    List<String> windowConfigs = new ArrayList<>();
    List<Integer> windowServers = new ArrayList<>();
    int shard = 0;
    for (File log : logs) {
      shard++;
      Map<String, String> run = runLine(log);
      if (run == null) {
        throw new IllegalArgumentException(log + " is not a complete weft-load interval log (no run line)");
      }
      if (first) {
        r.model = run.get("model");
        r.mode = run.get("mode");
        r.scenario = run.get("scenario");
        expected = Long.parseLong(run.getOrDefault("expectedIntervalNanos", "-1"));
        first = false;
      } else if (!r.model.equals(run.get("model"))) {
        throw new IllegalArgumentException(log + " is of the " + run.get("model") + " model, the others of the " + r.model);
      }
      r.seconds = Math.max(r.seconds, Double.parseDouble(run.getOrDefault("seconds", "0")));
      r.users += Long.parseLong(run.getOrDefault("users", "0"));
      try (HistogramLogReader reader = new HistogramLogReader(log)) {
        EncodableHistogram e;
        while ((e = reader.nextIntervalHistogram()) != null) {
          if (!(e instanceof Histogram)) {
            continue;
          }
          Histogram h = (Histogram) e;
          if (r.startEpochMillis == 0 || h.getStartTimeStamp() < r.startEpochMillis) {
            r.startEpochMillis = (long) (reader.getStartTimeSec() * 1000);
          }
          double rel = h.getStartTimeStamp() / 1000.0 - reader.getStartTimeSec();
          long bucket = Math.max(0L, Math.round(rel));
          double length = (h.getEndTimeStamp() - h.getStartTimeStamp()) / 1000.0;
          lengths.merge(bucket, length, Math::max);
          String tag = h.getTag() == null ? "_" : h.getTag();
          byTag.computeIfAbsent(tag, t -> new TreeMap<>()).computeIfAbsent(bucket, b -> new Histogram(3)).add(h);
        }
      }
      boolean saysConnects = false;
      for (String line : Files.readAllLines(log.toPath(), StandardCharsets.UTF_8)) {
        if (line.startsWith("#" + Reporter.COMMENT + "interval-errors ")) {
          String[] f = line.substring(1 + Reporter.COMMENT.length() + "interval-errors ".length()).split(" ");
          if (f.length == 3) {
            long bucket = Math.max(0L, Math.round(Double.parseDouble(f[1])));
            long n = Long.parseLong(f[2]);
            intervalErrors.computeIfAbsent(f[0], k -> new TreeMap<>()).merge(bucket, n, Long::sum);
            allErrors.merge(bucket, n, Long::sum);
            byTag.computeIfAbsent(f[0], t -> new TreeMap<>()).computeIfAbsent(bucket, b -> new Histogram(3));
          }
        } else if (line.startsWith("#" + Reporter.COMMENT + Reporter.INTERVAL_CONNECTS)) {
          String[] f = line.substring(1 + Reporter.COMMENT.length() + Reporter.INTERVAL_CONNECTS.length()).split(" ");
          // Since session 20 a fifth field, the window's size (-1 without a window).
          if (f.length == 4 || f.length == 5) {
            saysConnects = true;
            long bucket = Math.max(0L, Math.round(Double.parseDouble(f[0])));
            long[] c = connects.computeIfAbsent(bucket, b -> new long[] {0L, -1L, 0L, -1L});
            c[0] += Long.parseLong(f[1]);
            long waiting = Long.parseLong(f[2]);
            if (waiting >= 0) {
              c[1] = Math.max(c[1], 0L) + waiting;
            }
            c[2] += Long.parseLong(f[3]);
            long size = f.length == 5 ? Long.parseLong(f[4]) : -1L;
            if (size >= 0) {
              c[3] = Math.max(c[3], 0L) + size;
            }
          }
        } else if (line.startsWith("#" + Reporter.COMMENT + WindowFigures.LOG)) {
          String comment = line.substring(1 + Reporter.COMMENT.length() + WindowFigures.LOG.length());
          WindowFigures w = WindowFigures.parse(comment);
          if (w != null) {
            window = window == null ? w : window.plus(w);
            windowShards.add(shard);
            windowConfigs.add(WindowFigures.config(comment));
            windowServers.add(w.addresses);
          }
        } else if (line.startsWith("#" + Reporter.COMMENT + "errors ")) {
          String[] f = line.substring(1 + Reporter.COMMENT.length() + "errors ".length()).split(" ");
          if (f.length == 3) {
            r.op(f[0]).errors.merge(f[1], Long.parseLong(f[2]), Long::sum);
          }
        }
      }
      connectsKnown &= saysConnects;
    }
    r.info.put("shards", Integer.toString(logs.size()));
    r.info.put(r.open() ? "max sessions" : "users", Long.toString(r.users));
    if (window != null) {
      // The shards' windows together; a shard whose log says nothing of one (no window, or a log
      // of weft-load before 2026-11-28) is named, not guessed. Shards whose windows differ (their
      // configurations, or how many servers each had) are said shard by shard.
      int windowed = windowShards.size();
      boolean oneConfig = new HashSet<>(windowConfigs).size() == 1;
      String header;
      if (oneConfig && new HashSet<>(windowServers).size() == 1) {
        header = windowConfigs.get(0) + (windowed > 1 ? " in each of " + windowed + " shards" : "")
            + LoadRun.forEachServer(windowServers.get(0));
      } else {
        StringBuilder h = new StringBuilder("differs by shard (");
        for (int i = 0; i < windowed; i++) {
          h.append(i > 0 ? "; " : "").append("shard ").append(windowShards.get(i)).append(": ")
              .append(windowConfigs.get(i)).append(LoadRun.forEachServer(windowServers.get(i)));
        }
        header = h.append(')').toString();
      }
      r.window = window;
      r.windowConfig = oneConfig ? windowConfigs.get(0) : header;
      r.info.put("connect window", LoadRun.windowSummary(header, window, oneConfig)
          + (windowed < logs.size() ? " (" + (logs.size() - windowed) + " of " + logs.size()
              + " shards' logs say nothing of a window)" : ""));
    }
    TreeMap<Long, Histogram> all = new TreeMap<>();
    for (Map.Entry<String, TreeMap<Long, Histogram>> e : byTag.entrySet()) {
      String tag = e.getKey();
      boolean service = tag.startsWith("service:");
      boolean server = tag.startsWith(Reporter.SERVER);
      boolean client = tag.startsWith(Reporter.CLIENT);
      Results.Op op = r.op(service || server || client ? tag.substring(tag.indexOf(':') + 1) : tag);
      for (Map.Entry<Long, Histogram> b : e.getValue().entrySet()) {
        if (service) {
          if (op.service == null) {
            op.service = new Histogram(3);
          }
          op.service.add(b.getValue());
        } else if (server || client) {
          if (op.server == null) {
            op.server = new Histogram(3);
            op.client = new Histogram(3);
          }
          (server ? op.server : op.client).add(b.getValue());
        } else {
          op.latency.add(b.getValue());
          long errors = intervalErrors.getOrDefault(e.getKey(), new TreeMap<>()).getOrDefault(b.getKey(), 0L);
          op.intervals.add(new Results.Interval(b.getKey(), lengths.getOrDefault(b.getKey(), 1.0), b.getValue(), errors));
          all.computeIfAbsent(b.getKey(), k -> new Histogram(3)).add(b.getValue());
        }
      }
    }
    if (!connectsKnown) {
      connects.clear();
    }
    for (Long bucket : connects.keySet()) {
      // A second with connects and no operation (the ramp) is in the timeline too.
      all.computeIfAbsent(bucket, k -> new Histogram(3));
    }
    for (Map.Entry<Long, Histogram> b : all.entrySet()) {
      long[] c = connectsKnown ? connects.getOrDefault(b.getKey(), new long[] {0L, -1L, 0L, -1L})
          : new long[] {-1L, -1L, 0L, -1L};
      r.timeline.add(new Results.Interval(b.getKey(), lengths.getOrDefault(b.getKey(), 1.0), b.getValue(),
          allErrors.getOrDefault(b.getKey(), 0L), c[0], c[1], c[2], c[3]));
    }
    if (!r.open()) {
      r.correct(expected);
    }
    return r;
  }

  /** The {@code #weft-load run k=v ...} line of a log, as a map; null if it has none. */
  static Map<String, String> runLine(File log) throws IOException {
    for (String line : Files.readAllLines(log.toPath(), StandardCharsets.UTF_8)) {
      if (line.startsWith("#" + Reporter.COMMENT + "run ")) {
        Map<String, String> m = new HashMap<>();
        for (String kv : line.substring(1 + Reporter.COMMENT.length() + "run ".length()).split(" ")) {
          int eq = kv.indexOf('=');
          if (eq > 0) {
            m.put(kv.substring(0, eq), kv.substring(eq + 1));
          }
        }
        return m;
      }
    }
    return null;
  }
}
