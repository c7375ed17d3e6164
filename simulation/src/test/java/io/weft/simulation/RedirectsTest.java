package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.simulation.clients.ClockClient;
import io.weft.simulation.clients.SecureRandomClient;
import io.weft.simulation.clients.UnseededRandomClient;
import io.weft.simulation.servers.EchoServer;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
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

  private static List<String> unseeded(long seed) {
    SimulationResult<String> result = Simulation.builder()
        .seed(seed)
        .instrument("io.weft.simulation.clients", "io.weft.simulation.servers")
        .server(DeterminismMain.SERVER, Server.of(EchoServer.class))
        .build()
        .run(UnseededRandomClient.class, 4, DeterminismMain.SERVER);
    assertTrue(result.allSucceeded(), result.report());
    return result.outcomes().stream().map(SessionOutcome::value).toList();
  }

  @Test
  void anUnseededRandomIsSeededFromTheRun() {
    List<String> first = unseeded(7);
    assertEquals(first, unseeded(7));
    assertNotEquals(first, unseeded(8));
    // each new Random() draws its own seed: the four sessions do not repeat one another
    assertEquals(4, first.stream().distinct().count(), first.toString());
    assertEquals(4, first.stream().map(v -> v.split(" ")[1]).distinct().count(), first.toString());
  }

  private static List<String> secure(long seed) {
    SimulationResult<String> result = Simulation.builder()
        .seed(seed)
        .instrument("io.weft.simulation.clients", "io.weft.simulation.servers")
        .server(DeterminismMain.SERVER, Server.of(EchoServer.class))
        .build()
        .run(SecureRandomClient.class, 3, DeterminismMain.SERVER);
    assertTrue(result.allSucceeded(), result.report());
    return result.outcomes().stream().map(SessionOutcome::value).toList();
  }

  @Test
  void secureRandomDrawsAndRandomUuidsFollowTheSeed() {
    List<String> first = secure(11);
    assertEquals(first, secure(11));
    assertNotEquals(first, secure(12));
    assertEquals(3, first.stream().distinct().count(), first.toString());
    for (String v : first) {
      UUID uuid = UUID.fromString(v.split(" ")[2]);
      assertEquals(4, uuid.version(), v);
      assertEquals(2, uuid.variant(), v);
    }
  }
}
