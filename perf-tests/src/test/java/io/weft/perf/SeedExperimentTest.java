package io.weft.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.protocols.tester.LineTesterTask;
import io.weft.testsupport.EchoServer;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

/** The experiment's plumbing on a tiny run; the figures themselves are only ever printed. */
class SeedExperimentTest {

  @Test
  void defaultsToLoopbackTcpWhereEveryReadSuspends() {
    assertTrue(SeedExperiment.parse().tcp());
    assertFalse(SeedExperiment.parse("--transport=vmpipe").tcp());
    assertFalse(SeedExperiment.parse("--transport", "pipe").tcp());
  }

  @Test
  void parsesEveryOptionAndRejectsUnknownOnes() {
    SeedExperiment.Config config = SeedExperiment.parse(
        "--transport=tcp", "--delay-ms=1", "--connections=7", "--transactions=3", "--warmup=0", "--spin-us=50");
    assertTrue(config.tcp());
    assertEquals(1, config.delayMs);
    assertEquals(7, config.connections);
    assertEquals(42, config.events());
    assertEquals(50, config.spinMicros);
    assertEquals(5, config.repeat);
    assertEquals(2, SeedExperiment.parse("--repeat=2").repeat);
    assertEquals("--repeat < 1: 0",
        assertThrows(ParameterException.class, () -> SeedExperiment.parse("--repeat=0")).getMessage());
    try (io.weft.transport.mina.SuspendingMinaConnector connector = config.newSuspendingConnector()) {
      assertEquals(50_000, connector.spinBeforeSuspendNanos());
    }
    ParameterException e = assertThrows(ParameterException.class, () -> SeedExperiment.parse("--connections=0"));
    assertEquals("--connections < 1: 0", e.getMessage());
    assertThrows(ParameterException.class, () -> SeedExperiment.parse("--nope"));
    assertThrows(ParameterException.class, () -> SeedExperiment.parse("--transport=udp"));
  }

  @Test
  void everyRowRunsATinyWorkloadWithoutFailures() throws Exception {
    for (boolean tcp : new boolean[] {false, true}) {
      SeedExperiment.Config config = SeedExperiment.parse("--connections=20", "--transactions=3",
          "--transport=" + (tcp ? "tcp" : "vmpipe"));
      try (EchoServer server = tcp ? EchoServer.tcp() : EchoServer.vmPipe()) {
        for (SeedExperiment.Row row : SeedExperiment.rows()) {
          try (row) {
            assertEquals(0, row.run(config, server.address(), new LineTesterTask(3)), row.mode());
            if (row.mode().startsWith("CONTINUATIONS") && tcp) {
              assertTrue(row.lastSuspends() > 0, "over TCP a read waits: " + row.lastSuspends());
            }
          }
        }
        assertEquals(60L * SeedExperiment.rows().size(), server.linesEchoed());
      }
    }
  }

  @Test
  void tablePrintsOneLinePerRow() {
    String table = SeedExperiment.table(List.of(
        new SeedExperiment.Result("SYNC", 1000, 20000, 300_000_000L, 0, -1L)));
    assertTrue(table.contains("µs/event"), table);
    assertTrue(table.matches("(?s).*SYNC\\s+1000\\s+20000\\s+300\\.0\\s+-\\s+15\\.00\\s+0\\s+-\\s*"), table);
    String repeated = SeedExperiment.table(List.of(new SeedExperiment.Result("SYNC", 1000, 20000,
        new long[] {310_000_000L, 290_000_000L, 300_000_000L}, 0, -1L)));
    assertTrue(repeated.matches("(?s).*SYNC\\s+1000\\s+20000\\s+300\\.0\\s+290\\.0-310\\.0\\s+15\\.00\\s+0\\s+-\\s*"),
        repeated);
  }

  @Test
  void overheadPerContinuationIsTheWallDifferencePerSuspendOrSaysThatNothingSuspended() {
    SeedExperiment.Result sync = new SeedExperiment.Result("SYNC", 1000, 20000, 300_000_000L, 0, -1L);
    String figure = SeedExperiment.overheadPerContinuation(List.of(sync,
        new SeedExperiment.Result("CONTINUATIONS(1)", 1000, 20000, 310_000_000L, 0, 10_000L)));
    assertEquals("overhead per continuation, CONTINUATIONS(1) = (wall - SYNC wall) / suspends"
        + " = (310.0 ms - 300.0 ms) / 10000 = 1.00 µs (baseline: 150 µs)", figure);
    String none = SeedExperiment.overheadPerContinuation(List.of(sync,
        new SeedExperiment.Result("CONTINUATIONS(1)", 1000, 20000, 320_000_000L, 0, 0L)));
    assertTrue(none.contains("0 suspends (every exchange took the fast path)"), none);
  }

  @Test
  void aNegativeOverheadIsBelowWhatTheRunCanMeasureWithTheReason() {
    SeedExperiment.Result sync = new SeedExperiment.Result("SYNC", 1000, 20000, 300_000_000L, 0, -1L);
    String inFlight = SeedExperiment.overheadPerContinuation(List.of(sync,
        new SeedExperiment.Result("CONTINUATIONS(1)", 1000, 20000, 200_000_000L, 0, 10_000L)));
    assertTrue(inFlight.startsWith("overhead per continuation, CONTINUATIONS(1): below what this run can measure:"
        + " (wall - SYNC wall) / suspends = (200.0 ms - 300.0 ms) / 10000 = -10.00 µs is negative: with every"
        + " session in flight, concurrency hides the waits"), inFlight);
    String oneAtATime = SeedExperiment.overheadPerContinuation(List.of(sync,
        new SeedExperiment.Result(SeedExperiment.SEQUENTIAL_CONTINUATIONS, 1000, 20000, 290_000_000L, 0, 10_000L)));
    assertTrue(oneAtATime.contains("is negative: one session at a time, a resume on the I/O thread"), oneAtATime);
  }

  @Test
  void aDifferenceWithinTheSpreadIsBelowWhatTheRunCanMeasure() {
    SeedExperiment.Result sync = new SeedExperiment.Result("SYNC", 1000, 20000,
        new long[] {290_000_000L, 300_000_000L, 320_000_000L}, 0, -1L);
    SeedExperiment.Result continued = new SeedExperiment.Result("CONTINUATIONS(1)", 1000, 20000,
        new long[] {305_000_000L, 310_000_000L, 312_000_000L}, 0, 10_000L);
    assertEquals("overhead per continuation, CONTINUATIONS(1): below what this run can measure: the difference,"
        + " +10.0 ms, is within the runs' spread (SYNC 290.0-320.0 ms, CONTINUATIONS(1) 305.0-312.0 ms): at most"
        + " 3.00 µs per suspend (baseline: 150 µs)", SeedExperiment.overheadPerContinuation(List.of(sync, continued)));
    SeedExperiment.Result slower = new SeedExperiment.Result("CONTINUATIONS(1)", 1000, 20000,
        new long[] {350_000_000L, 360_000_000L, 355_000_000L}, 0, 10_000L);
    assertEquals("overhead per continuation, CONTINUATIONS(1) = (wall - SYNC wall) / suspends"
        + " = (355.0 ms - 300.0 ms) / 10000 = 5.50 µs, medians of 3 runs (baseline: 150 µs)",
        SeedExperiment.overheadPerContinuation(List.of(sync, slower)));
  }

  @Test
  void aModeThatWasNotRunSaysWhy() {
    if (Runtime.version().feature() >= 21) {
      assertEquals(List.of(), SeedExperiment.notRun());
      assertTrue(SeedExperiment.rows().stream().anyMatch(r -> r.mode().equals("VIRTUAL_THREADS")));
    } else {
      assertEquals(List.of("VIRTUAL_THREADS: not run: JDK " + Runtime.version().feature()
          + " (virtual threads need JDK 21+)"), SeedExperiment.notRun());
    }
  }
}
