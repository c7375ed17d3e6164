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
    assertTrue(lines[0].matches(" *1\\.0s +active +0 +100 ops/s +p50 .* p99 .* errors 1"), lines[0]);
    assertTrue(lines[1].matches(" *2\\.0s +active +0 +50 ops/s .* errors 0"), lines[1]);
    assertTrue(!out.contains("\r"));
  }

  @Test
  void oneRedrawnLineOnATerminal() throws Exception {
    String out = live(true, false);
    assertEquals(2, out.split("\r", -1).length - 1, out);
    assertTrue(out.endsWith("\n"));
    assertEquals(1, out.split("\n", -1).length - 1, "one newline, at the end");
  }

  @Test
  void nothingWhenQuiet() throws Exception {
    assertEquals("", live(false, true));
    assertEquals("", live(true, true));
  }
}
