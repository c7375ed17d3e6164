package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.NotInstrumentableException;
import io.weft.simulation.clients.ClockClient;
import io.weft.simulation.clients.UnseededRandomClient;
import io.weft.simulation.servers.EchoServer;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rewritten code's clock and random sources read the simulation's virtual time and seed. */
class RedirectsTest {
  private static SimulationResult<String> clocks(long seed) {
    return Simulation.builder()
        .seed(seed)
        .instrument("io.weft.simulation.clients", "io.weft.simulation.servers")
        .server(DeterminismMain.SERVER, Server.of(EchoServer.class))
        .build()
        .run(ClockClient.class, 3, DeterminismMain.SERVER);
  }

  @Test
  void sleepsAndClocksReadVirtualTime() {
    SimulationResult<String> result = clocks(3);
    assertTrue(result.allSucceeded(), result.report());
    for (SessionOutcome<String> o : result.outcomes()) {
      String[] f = o.value().split(" ");
      assertEquals(2_000_000_000L, Long.parseLong(f[0]), o.value());
      // on a perfect link the connect takes no time: the session slept from 0 to 2 s
      assertEquals(SimulatedTime.EPOCH.plusSeconds(2), Instant.parse(f[1]), o.value());
      assertEquals(SimulatedTime.EPOCH.plusSeconds(2).toEpochMilli(), Long.parseLong(f[2]), o.value());
      assertEquals(SimulatedTime.EPOCH.plusSeconds(2).toEpochMilli(), Long.parseLong(f[3]), o.value());
    }
    assertEquals(2_000_000_000L, result.virtualNanos());
  }

  @Test
  void threadLocalRandomAndMathRandomDrawFromTheSeed() {
    List<String> first = values(clocks(3));
    assertEquals(first, values(clocks(3)));
    assertNotEquals(first, values(clocks(4)));
  }

  private static List<String> values(SimulationResult<String> result) {
    return result.outcomes().stream().map(o -> o.value().split(" ", 5)[4]).toList();
  }

  @Test
  void anUnseededRandomIsRefusedBeforeTheRunWithItsChain() {
    Simulation sim = Simulation.builder()
        .instrument("io.weft.simulation.clients", "io.weft.simulation.servers")
        .server(DeterminismMain.SERVER, Server.of(EchoServer.class))
        .build();
    NotInstrumentableException e = assertThrows(NotInstrumentableException.class,
        () -> sim.run(UnseededRandomClient.class, 1, DeterminismMain.SERVER));
    assertTrue(e.getMessage().contains("makes a java.util.Random without a seed"), e.getMessage());
    assertTrue(e.getMessage().contains("UnseededRandomClient.run (line"), e.getMessage());
  }
}
