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
@org.junit.jupiter.api.Timeout(60)
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
    try (io.weft.transport.mina.ContinuingMinaConnector connector = config.newContinuingConnector()) {
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
    assertTrue(table.matches("(?s).*SYNC\\s+1000\\s+20000\\s+300\\.0\\s+15\\.00\\s+0\\s+-\\s*"), table);
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
}
