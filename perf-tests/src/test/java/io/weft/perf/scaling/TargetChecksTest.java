package io.weft.perf.scaling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class TargetChecksTest {

  @Test
  void eachTargetIsMetOrMissedWithItsFigures() {
    List<String> lines = TargetChecks.check(List.of(
        row("CONTINUATIONS_1", 12.0, 300_000, 1900),
        row("VIRTUAL_THREADS", 20.0, 200_000, 1500),
        row("CALLBACK", 9.0, 400_000, 900)));
    assertEquals(List.of(
        "pipe, 10,000 sessions: CONTINUATIONS_1 wall <= 1.3x ideal: MET, 1.20x (12.0 ms, ideal 10 ms)",
        "pipe, 10,000 sessions: CONTINUATIONS_1 events/s >= VIRTUAL_THREADS: MET, 300,000 vs 200,000",
        "pipe, 10,000 sessions: CONTINUATIONS_1 wall <= 1.2x CALLBACK: MISSED, 1.33x (12.0 ms vs 9.0 ms)",
        "pipe, 10,000 sessions: CONTINUATIONS_1 heap <= 2 KB per waiting session: MET, 1,900 B" + TargetChecks.WHOLE_SESSION_ON_PIPE),
        lines);
  }

  @Test
  void aMissingSubjectSaysWhy() {
    List<String> lines = TargetChecks.check(List.of(
        ScalingResult.notRun("tcp", "CONTINUATIONS_1", 10_000, 10, "needs the runner"),
        row("CALLBACK", 9.0, 400_000, 900)));
    assertEquals(List.of("tcp, 10,000 sessions: targets NOT MEASURED: needs the runner"),
        lines.subList(0, 1));
  }

  private static ScalingResult row(String mode, double wallMs, double events, double heap) {
    return new ScalingResult("pipe", mode, 10_000, 10_000, 0, 5, wallMs, 10, events, 10, heap,
        100, 200, 300, "");
  }
}
