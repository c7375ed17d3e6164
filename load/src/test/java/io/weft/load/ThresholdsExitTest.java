package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Thresholds decide the exit code, and the summary names the one that failed. */
class ThresholdsExitTest {
  @TempDir Path dir;

  private Runs line(String name, String... thresholds) {
    String[] args = new String[9 + 2 * thresholds.length];
    String[] base = {"line", "--in-vm", "--mode", "threads", "-u", "2", "-n", "50", "-q"};
    System.arraycopy(base, 0, args, 0, base.length);
    for (int i = 0; i < thresholds.length; i++) {
      args[base.length + 2 * i] = "--threshold";
      args[base.length + 2 * i + 1] = thresholds[i];
    }
    return Runs.run(new File(dir.toFile(), name), args);
  }

  @Test
  void exitsZeroWhenEveryThresholdHolds() {
    Runs r = line("pass", "echo:p99<1h", "errors<0.1%", "count>=100", "echo:max<=1h");
    assertEquals(0, r.exit, r::toString);
    assertTrue(r.output.contains("threshold PASSED echo:p99<1h"), r::toString);
  }

  @Test
  void exitsOneAndNamesTheThresholdThatFailed() throws Exception {
    Runs r = line("fail", "echo:p99<1h", "echo:count>100");
    assertEquals(1, r.exit, r::toString);
    assertTrue(r.output.contains("threshold FAILED echo:count>100 (actual 100)"), r::toString);
    assertTrue(r.output.contains("1 of 2 thresholds FAILED"), r::toString);
    JsonNode th = r.summary().at("/thresholds");
    assertEquals(2, th.size());
    assertTrue(th.get(0).at("/passed").asBoolean());
    assertEquals(false, th.get(1).at("/passed").asBoolean());
  }

  @Test
  void aLatencyThresholdOnAnOperationThatNeverRanFails() {
    Runs r = line("missing", "GET:p99<20ms");
    assertEquals(1, r.exit, r::toString);
    assertTrue(r.output.contains("FAILED GET:p99<20ms (actual no operations)"), r::toString);
  }

  @Test
  void exitsTwoOnABadThresholdBeforeAnythingRuns() {
    Runs r = line("bad", "echo:p99<fast");
    assertEquals(2, r.exit, r::toString);
  }
}
