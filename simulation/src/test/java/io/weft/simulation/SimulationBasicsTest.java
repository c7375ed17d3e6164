package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.simulation.clients.EchoClient;
import io.weft.simulation.servers.EchoServer;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SimulationBasicsTest {
  static final InetSocketAddress SERVER = InetSocketAddress.createUnresolved("server", 7);

  static Simulation echo(long seed) {
    return Simulation.builder()
        .seed(seed)
        .instrument("io.weft.simulation.clients", "io.weft.simulation.servers")
        .link(Link.of(Latency.uniform(10, 60, TimeUnit.MILLISECONDS)))
        .server(SERVER, Server.of(EchoServer.class))
        .timeout(Timeout.of(5, TimeUnit.SECONDS))
        .build();
  }

  @Test
  void echoSessionsSucceedInVirtualTime() {
    SimulationResult<String> result = echo(1).run(EchoClient.class, 100, SERVER, 5);
    assertTrue(result.allSucceeded(), result.report());
    assertEquals("session 7 round 4", result.outcomes().get(7).value());
    // 5 round trips plus the connect, each at least 20 ms and under 120 ms of virtual time
    assertTrue(result.virtualNanos() >= TimeUnit.MILLISECONDS.toNanos(120), result.summary());
    assertTrue(result.virtualNanos() < TimeUnit.MILLISECONDS.toNanos(720), result.summary());
    System.out.println(result.summary());
  }

  @Test
  void sameSeedSameLogDifferentSeedDifferentLog() {
    Simulation sim = echo(42);
    String first = sim.run(EchoClient.class, 50, SERVER, 3).logSha256();
    String second = echo(42).run(EchoClient.class, 50, SERVER, 3).logSha256();
    String other = echo(43).run(EchoClient.class, 50, SERVER, 3).logSha256();
    assertEquals(first, second);
    assertNotEquals(first, other);
  }
}
