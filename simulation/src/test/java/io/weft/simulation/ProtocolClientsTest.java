package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.simulation.clients.HttpSession;
import io.weft.simulation.clients.RedisSession;
import io.weft.simulation.clients.SmtpSession;
import io.weft.simulation.servers.HttpServer;
import io.weft.simulation.servers.RedisServer;
import io.weft.simulation.servers.SmtpServer;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The protocols module's Redis, HTTP and SMTP clients, unchanged, against simulated servers. */
class ProtocolClientsTest {
  private static Simulation.Builder base(InetSocketAddress address, Server server) {
    return Simulation.builder()
        .seed(11)
        .instrument("io.weft.simulation.clients", "io.weft.simulation.servers", "io.weft.protocols")
        .link(Link.of(Latency.exponential(5, 10, TimeUnit.MILLISECONDS)).withBandwidth(1_000_000))
        .server(address, server)
        .timeout(Timeout.of(5, TimeUnit.SECONDS));
  }

  @Test
  void redisClientsShareOneKeyspace() {
    InetSocketAddress redis = InetSocketAddress.createUnresolved("redis", 6379);
    SimulationResult<Long> result = base(redis, Server.of(RedisServer.class)).build().run(RedisSession.class, 200, redis);
    assertTrue(result.allSucceeded(), result.report());
    Set<Long> counters = new HashSet<>(result.outcomes().stream().map(SessionOutcome::value).toList());
    // INCR on one shared counter: every session saw a different value, 1 to 200
    assertEquals(200, counters.size());
    assertTrue(counters.contains(1L) && counters.contains(200L));
  }

  @Test
  void httpClientsKeepTheirConnectionAlive() {
    InetSocketAddress web = InetSocketAddress.createUnresolved("web", 80);
    SimulationResult<String> result = base(web, Server.of(HttpServer.class)).build().run(HttpSession.class, 200, web);
    assertTrue(result.allSucceeded(), result.report());
    assertEquals("GET /items/42/1 0", result.outcomes().get(42).value());
  }

  @Test
  void smtpClientsSendThroughAServerWithFewSlots() {
    InetSocketAddress mail = InetSocketAddress.createUnresolved("mail", 25);
    // Two sessions serve at once; the rest wait in the accept queue, or have their SYN dropped
    // and sent again: each still gets through within its 60 s connect timeout.
    SimulationResult<String> result = base(mail, Server.of(SmtpServer.class).withMaxConnections(2).withBacklog(10))
        .timeout(Timeout.of(60, TimeUnit.SECONDS)).build().run(SmtpSession.class, 30, mail);
    assertTrue(result.allSucceeded(), result.report());
    assertEquals("250", result.outcomes().get(29).value());
    // the queue overflowed: some SYN was dropped and sent again a virtual second later
    assertTrue(result.virtualNanos() > TimeUnit.SECONDS.toNanos(1), result.summary());
  }
}
