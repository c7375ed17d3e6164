package io.weft.load.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.load.record.OpRecorder;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The live output, with the interval ends given (no clock): lines, a redrawn line, or nothing. */
class ReporterTest {
  private static String live(boolean terminal, boolean quiet) throws Exception {
    Metrics metrics = new Metrics(false);
    Results results = new Results();
    results.model = "closed";
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Reporter reporter = new Reporter(metrics, results, new PrintStream(bytes, true, StandardCharsets.UTF_8),
        terminal, quiet, null, 0L);
    OpRecorder ops = metrics.newSession();
    for (int i = 0; i < 100; i++) {
      ops.stop("GET", ops.start());
    }
    ops.error("GET", new java.io.EOFException());
    reporter.tick(1_000_000_000L);
    for (int i = 0; i < 50; i++) {
      ops.stop("GET", ops.start());
    }
    reporter.finish(2_000_000_000L, -1);
    assertEquals(150, results.ops.get("GET").latency.getTotalCount());
    assertEquals(1L, results.ops.get("GET").errors.get("java.io.EOFException"));
    assertEquals(2, results.timeline.size());
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void plainLinesWhenNotATerminal() throws Exception {
    String out = live(false, false);
    String[] lines = out.split("\n");
    assertEquals(2, lines.length, out);
    assertTrue(lines[0].matches(" *1\\.0s +active +0 +100 ops/s +p50 .* p99 .* errors 1  connects 0"), lines[0]);
    assertTrue(lines[1].matches(" *2\\.0s +active +0 +50 ops/s .* errors 0  connects 0"), lines[1]);
    assertTrue(!out.contains("\r"));
  }

  @Test
  void oneRedrawnLineOnATerminal() throws Exception {
    String out = live(true, false);
    assertEquals(2, out.split("\r", -1).length - 1, out);
    assertTrue(out.endsWith("\n"));
    assertEquals(1, out.split("\n", -1).length - 1, "one newline, at the end");
  }

  /**
   * Issue 26 item 2, "reported as part of the timeline": each interval carries the connects begun
   * in it and, with a connect window, the users waiting for a place at its end and the places
   * freed unheard in it: on the live line, in the results' timeline, and in the interval log,
   * from which two shards' logs merge into one timeline that keeps them. The window is the real
   * one on the test's clock.
   */
  @Test
  void eachIntervalShowsItsConnectsAndTheConnectWindow(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.util.List<java.io.File> logs = new java.util.ArrayList<>();
    String[] outs = new String[2];
    for (int shard = 0; shard < 2; shard++) {
      long[] now = {0L};
      io.weft.continuations.ConnectWindow.Window w = io.weft.continuations.ConnectWindow.of(2,
          java.time.Duration.ofSeconds(1)).newWindow(() -> now[0]);
      Metrics metrics = new Metrics(false);
      Results results = new Results();
      results.model = "closed";
      results.mode = "THREADS";
      results.scenario = "x";
      results.users = 5;
      results.startEpochMillis = 1_700_000_000_000L;
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      java.io.File hlog = new java.io.File(dir.toFile(), "shard" + shard + ".hlog");
      logs.add(hlog);
      Reporter reporter = new Reporter(metrics, results, new PrintStream(bytes, true, StandardCharsets.UTF_8),
          false, false, hlog, 0L);
      reporter.window(w::report);
      OpRecorder ops = metrics.newSession();
      // Second 1: two users take the places and connect; three wait.
      for (int i = 0; i < 10; i++) {
        ops.stop("GET", ops.start());
      }
      for (int i = 0; i < 2; i++) {
        w.tryEnter().connecting();
        metrics.connectBegun();
      }
      java.util.List<io.weft.continuations.ConnectWindow.Waiter> waiters = new java.util.ArrayList<>();
      for (int i = 0; i < 3; i++) {
        waiters.add(w.waiter());
      }
      reporter.tick(1_000_000_000L);
      // Second 2: the server never spoke; both places come due, are freed, and two waiters connect.
      now[0] += 1_000_000_000L;
      for (int i = 0; i < 2; i++) {
        w.tryEnter().connecting();
        waiters.remove(0).leave();
        metrics.connectBegun();
      }
      // The run ends 0.3 s into second 2: a partial last interval, with 3 operations.
      for (int i = 0; i < 3; i++) {
        ops.stop("GET", ops.start());
      }
      reporter.finish(1_300_000_000L, -1);
      assertEquals(2, results.timeline.size());
      Results.Interval first = results.timeline.get(0);
      Results.Interval second = results.timeline.get(1);
      assertEquals(2, first.connects);
      assertEquals(3, first.windowWaiting);
      assertEquals(0, first.freedUnheard);
      assertEquals(2, second.connects);
      assertEquals(1, second.windowWaiting);
      assertEquals(2, second.freedUnheard);
      assertEquals(2, first.windowSize);
      assertEquals(2, second.windowSize);
      outs[shard] = bytes.toString(StandardCharsets.UTF_8);
    }
    String[] lines = outs[0].split("\n");
    assertTrue(lines[0].endsWith("connects 2 (window 2, 3 wait for a place, 0 freed unheard)"), lines[0]);
    assertTrue(lines[1].endsWith("connects 2 (window 2, 1 wait for a place, 2 freed unheard)"), lines[1]);
    Results merged = LogMerge.merge(logs);
    assertEquals(2, merged.timeline.size());
    assertEquals(4, merged.timeline.get(0).connects);
    assertEquals(6, merged.timeline.get(0).windowWaiting);
    assertEquals(0, merged.timeline.get(0).freedUnheard);
    assertEquals(4, merged.timeline.get(1).connects);
    assertEquals(2, merged.timeline.get(1).windowWaiting);
    assertEquals(4, merged.timeline.get(1).freedUnheard);
    // The shards' windows, summed.
    assertEquals(4, merged.timeline.get(0).windowSize);
    assertEquals(4, merged.timeline.get(1).windowSize);
    // Interval lengths come from the histograms: the last, partial one is 0.3 s (its rate 6 / 0.3
    // s), not stretched to a second.
    assertEquals(1.0, merged.timeline.get(0).seconds, 0.0015);
    assertEquals(0.3, merged.timeline.get(1).seconds, 0.0015);
    assertEquals(6, merged.timeline.get(1).count);
    assertEquals(0.3, merged.ops.get("GET").intervals.get(1).seconds, 0.0015);
    java.util.Map<String, Object> json = JsonReport.tree(merged, null);
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> t1 = ((java.util.List<java.util.Map<String, Object>>) json.get("timeline")).get(1);
    assertEquals(4L, t1.get("connects"));
    assertEquals(2L, t1.get("windowWaiting"));
    assertEquals(4L, t1.get("freedUnheard"));
    assertEquals(4L, t1.get("window"));
    // A log written before the window's size was logged (four fields to a connect line) merges:
    // the same connects, the size unknown.
    java.util.List<java.io.File> old = new java.util.ArrayList<>();
    for (java.io.File log : logs) {
      java.util.List<String> lines4 = new java.util.ArrayList<>();
      for (String line : java.nio.file.Files.readAllLines(log.toPath(), StandardCharsets.UTF_8)) {
        lines4.add(line.startsWith("#" + Reporter.COMMENT + Reporter.INTERVAL_CONNECTS)
            ? line.substring(0, line.lastIndexOf(' ')) : line);
      }
      java.io.File o = new java.io.File(dir.toFile(), "old-" + log.getName());
      java.nio.file.Files.write(o.toPath(), lines4, StandardCharsets.UTF_8);
      old.add(o);
    }
    Results mergedOld = LogMerge.merge(old);
    assertEquals(4, mergedOld.timeline.get(1).connects);
    assertEquals(2, mergedOld.timeline.get(1).windowWaiting);
    assertEquals(-1, mergedOld.timeline.get(1).windowSize);
    assertTrue(!JsonReport.tree(mergedOld, null).toString().contains("window="));
  }

  /** Without a window the timeline has the connects, and no window figures. */
  @Test
  void withoutAWindowOnlyTheConnects() throws Exception {
    Metrics metrics = new Metrics(false);
    Results results = new Results();
    results.model = "closed";
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Reporter reporter = new Reporter(metrics, results, new PrintStream(bytes, true, StandardCharsets.UTF_8),
        false, false, null, 0L);
    metrics.connectBegun();
    reporter.finish(1_000_000_000L, -1);
    assertEquals(1, results.timeline.get(0).connects);
    assertEquals(-1, results.timeline.get(0).windowWaiting);
    assertTrue(bytes.toString(StandardCharsets.UTF_8).trim().endsWith("connects 1"), bytes::toString);
    assertTrue(!JsonReport.tree(results, null).toString().contains("windowWaiting"));
  }

  @Test
  void nothingWhenQuiet() throws Exception {
    assertEquals("", live(false, true));
    assertEquals("", live(true, true));
  }
}
