package io.weft.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.perf.Targets.MicroFigure;
import io.weft.perf.heap.HeapPerSession;
import io.weft.perf.scaling.ScalingResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each target judges a run's figures: MET, MISSED with the figures, or NOT MEASURED and why. */
class TargetsTest {

  @Test
  void seedJudgesEachContinuationRowAgainstSyncAt1Point2() {
    SeedExperiment.Result sync = seedRow("SYNC", 100_000_000L, 0);
    List<String> lines = Targets.seed(List.of(sync,
        seedRow("THREADS", 900_000_000L, 0),
        seedRow("CONTINUATIONS(1)", 119_000_000L, 0),
        seedRow(SeedExperiment.SEQUENTIAL_CONTINUATIONS, 130_000_000L, 0)));
    assertEquals(2, lines.size(), lines.toString());
    assertTrue(lines.get(0).startsWith("CONTINUATIONS(1) / SYNC wall time <= 1.2 (baseline 4.0"), lines.get(0));
    assertTrue(lines.get(0).endsWith("MET, 1.19 (119.0 ms / 100.0 ms)"), lines.get(0));
    assertTrue(lines.get(1).endsWith("MISSED, 1.30 (130.0 ms / 100.0 ms)"), lines.get(1));
  }

  @Test
  void seedRowsWithFailedSessionsOrWithoutSyncAreNotMeasured() {
    SeedExperiment.Result sync = seedRow("SYNC", 100_000_000L, 0);
    List<String> failed = Targets.seed(List.of(sync, seedRow("CONTINUATIONS(1)", 50_000_000L, 3)));
    assertTrue(failed.get(0).contains("NOT MEASURED, failed sessions"), failed.get(0));
    assertTrue(Targets.seed(List.of(sync)).get(0).contains("NOT MEASURED"));
  }

  @Test
  void scalingTargetsAreMetOrMissedWithTheirFigures() {
    List<String> lines = Targets.scaling(List.of(
        scalingRow("CONTINUATIONS_1", 12.0, 300_000, 1900),
        scalingRow("VIRTUAL_THREADS", 20.0, 200_000, 1500),
        scalingRow("CALLBACK", 9.0, 400_000, 900)));
    assertEquals(List.of(
        "pipe, 10,000 sessions: CONTINUATIONS_1 wall <= 1.3x ideal: MET, 1.20x (12.0 ms, ideal 10 ms)",
        "pipe, 10,000 sessions: CONTINUATIONS_1 events/s >= VIRTUAL_THREADS: MET, 300,000 vs 200,000",
        "pipe, 10,000 sessions: CONTINUATIONS_1 wall <= 1.2x CALLBACK: MISSED, 1.33x (12.0 ms vs 9.0 ms)",
        "pipe, 10,000 sessions: CONTINUATIONS_1 heap <= 2 KB per waiting session: MET, 1,900 B"
            + Targets.WHOLE_SESSION_ON_PIPE),
        lines);
  }

  @Test
  void scalingWithoutItsSubjectSaysWhy() {
    List<String> lines = Targets.scaling(List.of(
        ScalingResult.notRun("tcp", "CONTINUATIONS_1", 10_000, 10, "needs the runner"),
        scalingRow("CALLBACK", 9.0, 400_000, 900)));
    assertEquals(List.of("tcp, 10,000 sessions: targets NOT MEASURED: needs the runner"), lines.subList(0, 1));
  }

  @Test
  void heapJudgesTheContinuationKindsAgainst2Kb() {
    List<String> lines = Targets.heap(List.of(
        new HeapPerSession.Weight("CONTINUATIONS", 1000, 3, 900, 0, ""),
        new HeapPerSession.Weight("CONTINUATIONS_PIPE", 1000, 3, 4100, 0, ""),
        new HeapPerSession.Weight("VIRTUAL_THREADS", 1000, 3, 1500, 0, "")));
    assertEquals(2, lines.size(), lines.toString());
    assertTrue(lines.get(0).startsWith("CONTINUATIONS heap <= 2 KB") && lines.get(0).contains("MET, 900 B"),
        lines.get(0));
    assertTrue(lines.get(1).contains("MISSED, 4,100 B"), lines.get(1));
    assertTrue(Targets.heap(List.of(new HeapPerSession.Weight("CONTINUATIONS", 10, 3,
        Double.NaN, Double.NaN, "why"))).get(0).contains("NOT MEASURED, why"));
  }

  @Test
  void microDepthThreeWithinBothLimitsIsMet() {
    List<String> lines = Targets.micro(List.of(weft(1, 0, 900), weft(3, 0, 290), virtual(3, 300)), null);
    assertEquals(2, lines.size(), lines.toString());
    assertTrue(lines.get(0).contains("<= 300 ns: MET, 290"), lines.get(0));
    assertTrue(lines.get(1).contains("MET, 0.97x (290 ns vs 300 ns)"), lines.get(1));
  }

  @Test
  void microSlowerThanTheLimitOrTheRatioIsMissedWithFigures() {
    List<String> lines = Targets.micro(List.of(weft(3, 5000, 340), virtual(3, 200)), null);
    assertTrue(lines.get(0).startsWith("suspend+resume at depth 3 (5000 ms timeout armed) <= 300 ns: MISSED, 340"),
        lines.get(0));
    assertTrue(lines.get(1).contains("MISSED, 1.70x (340 ns vs 200 ns)"), lines.get(1));
  }

  @Test
  void microWithoutVirtualThreadsSaysWhy() {
    List<String> lines = Targets.micro(List.of(weft(3, 0, 250)), "needs JDK 21+");
    assertTrue(lines.get(1).endsWith("NOT MEASURED, needs JDK 21+"), lines.get(1));
  }

  @Test
  void microWithoutAWeftRowAtDepthThreeIsNotMeasured() {
    List<String> lines = Targets.micro(List.of(weft(1, 0, 250), virtual(3, 200)), null);
    assertEquals(1, lines.size());
    assertTrue(lines.get(0).contains("NOT MEASURED"), lines.get(0));
  }

  private static SeedExperiment.Result seedRow(String mode, long wallNanos, int failed) {
    return new SeedExperiment.Result(mode, 1000, 20000, wallNanos, failed, mode.startsWith("CONT") ? 0L : -1L);
  }

  private static ScalingResult scalingRow(String mode, double wallMs, double events, double heap) {
    return new ScalingResult("pipe", mode, 10_000, 10_000, 0, 5, wallMs, 10, events, 10, heap, 100, 200, 300, "");
  }

  private static MicroFigure weft(int depth, long timeoutMs, double ns) {
    return new MicroFigure(Targets.MICRO_SUBJECT, depth, timeoutMs, ns, 1.0);
  }

  private static MicroFigure virtual(int depth, double ns) {
    return new MicroFigure(Targets.MICRO_YARDSTICK, depth, -1L, ns, 1.0);
  }
}
