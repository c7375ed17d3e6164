package io.weft.perf.micro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class MicroTargetsTest {
  private static MicroTargets.Row weft(int depth, long timeoutMs, double ns) {
    return new MicroTargets.Row(MicroTargets.SUBJECT, depth, timeoutMs, ns, 1.0);
  }

  private static MicroTargets.Row virtual(int depth, double ns) {
    return new MicroTargets.Row(MicroTargets.YARDSTICK, depth, -1L, ns, 1.0);
  }

  @Test
  void depthThreeWithinBothLimitsIsMet() {
    List<String> lines = MicroTargets.check(List.of(weft(1, 0, 900), weft(3, 0, 290), virtual(3, 220)), null);
    assertEquals(2, lines.size(), lines.toString());
    assertTrue(lines.get(0).contains("<= 300 ns: MET, 290"), lines.get(0));
    assertTrue(lines.get(1).contains("MET, 1.32x (290 ns vs 220 ns)"), lines.get(1));
  }

  @Test
  void slowerThanTheLimitOrTheRatioIsMissedWithFigures() {
    List<String> lines = MicroTargets.check(List.of(weft(3, 5000, 340), virtual(3, 200)), null);
    assertTrue(lines.get(0).startsWith("suspend+resume at depth 3 (5000 ms timeout armed) <= 300 ns: MISSED, 340"),
        lines.get(0));
    assertTrue(lines.get(1).contains("MISSED, 1.70x (340 ns vs 200 ns)"), lines.get(1));
  }

  @Test
  void missingVirtualThreadsSayWhy() {
    List<String> lines = MicroTargets.check(List.of(weft(3, 0, 250)), "needs JDK 21+");
    assertTrue(lines.get(1).endsWith("NOT MEASURED, needs JDK 21+"), lines.get(1));
  }

  @Test
  void noWeftRowAtDepthThreeIsNotMeasured() {
    List<String> lines = MicroTargets.check(List.of(weft(1, 0, 250), virtual(3, 200)), null);
    assertEquals(1, lines.size());
    assertTrue(lines.get(0).contains("NOT MEASURED"), lines.get(0));
  }
}
