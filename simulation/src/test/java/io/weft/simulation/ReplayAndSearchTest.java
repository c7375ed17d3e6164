package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.simulation.clients.BlockingClient;
import io.weft.simulation.clients.EchoClient;
import io.weft.simulation.servers.EchoServer;
import io.weft.testsupport.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A failure names its seed and replay; the replay prints its events; a seed search stops at the first break. */
class ReplayAndSearchTest {
  @TempDir
  Path dir;

  @Test
  void aFailingSessionNamesTheSeedAndTheReplayCommand() {
    SimulationResult<String> result = DeterminismMain.flaky(42).run(EchoClient.class, 200, DeterminismMain.SERVER, 10);
    assertTrue(!result.allSucceeded(), result.report());
    String report = result.report();
    assertTrue(report.contains("seed 42; to replay: rerun with -Dweft.simulation.seed=42 -Dweft.simulation.log=true"),
        report);
  }

  @Test
  void theReplayWithTheLogPrintsTheEventsAroundTheFailure() throws Exception {
    // The replay command, as the report gives it, with another seed in the program's arguments:
    // the properties win, so the run is seed 42's, and the log is kept.
    ChildJvm.Result replay = ChildJvm.run(dir, Duration.ofMinutes(2),
        List.of("-Dweft.simulation.seed=42", "-Dweft.simulation.log=true"), DeterminismMain.class.getName(), "7");
    assertEquals(0, replay.exit(), replay.toString());
    String out = replay.out();
    SimulationResult<String> original = DeterminismMain.flaky(42).run(EchoClient.class, 200, DeterminismMain.SERVER, 10);
    int failed = original.failures().get(0).index();
    assertTrue(out.startsWith("simulation seed=42 "), out);
    assertTrue(out.contains(original.logSha256()), out);
    assertTrue(out.contains("events of session " + failed + " (conn "), out);
    assertTrue(out.contains("end session=" + failed + " failed=1"), out);
    assertTrue(out.contains("all events before its end:"), out);
  }

  @Test
  void aSeedSearchStopsAtTheFirstSeedThatBreaksTheInvariant() {
    Optional<SeedSearch.Found<String>> found = SeedSearch.firstBreaking(100, 50,
        seed -> DeterminismMain.flaky(seed).run(EchoClient.class, 20, DeterminismMain.SERVER, 10),
        SimulationResult::allSucceeded);
    assertTrue(found.isPresent());
    long seed = found.get().seed();
    assertEquals(seed - 100 + 1, found.get().tried());
    for (long s = 100; s < seed; s++) {
      assertTrue(DeterminismMain.flaky(s).run(EchoClient.class, 20, DeterminismMain.SERVER, 10).allSucceeded());
    }
    SimulationResult<String> again = DeterminismMain.flaky(seed).run(EchoClient.class, 20, DeterminismMain.SERVER, 10);
    assertEquals(found.get().result().logSha256(), again.logSha256());
    assertTrue(!again.allSucceeded());
  }

  @Test
  void aSessionThatBlocksItsThreadFailsTheRunWithTheChainAndTheSeed() {
    Simulation sim = Simulation.builder()
        .seed(5)
        .instrument("io.weft.simulation.clients", "io.weft.simulation.servers")
        .server(DeterminismMain.SERVER, Server.of(EchoServer.class))
        .build();
    BlockedSessionError e = assertThrows(BlockedSessionError.class,
        () -> sim.run(BlockingClient.class, 3, DeterminismMain.SERVER));
    assertEquals(5, e.seed());
    assertTrue(e.getMessage().contains("blocked the simulation's thread (WAITING)"), e.getMessage());
    assertTrue(e.getMessage().contains("(seed 5)"), e.getMessage());
    assertTrue(List.of(e.getStackTrace()).stream().anyMatch(f -> f.getClassName().equals(BlockingClient.class.getName())),
        e.getMessage());
  }
}
