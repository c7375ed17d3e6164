package io.weft.simulation;

import io.weft.simulation.clients.EchoClient;
import io.weft.simulation.servers.EchoServer;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** A run of a flaky echo simulation in a JVM of its own: prints its report. Argument: the seed. */
public final class DeterminismMain {
  static final InetSocketAddress SERVER = InetSocketAddress.createUnresolved("server", 7);

  private DeterminismMain() {}

  static Simulation flaky(long seed) {
    return Simulation.builder()
        .seed(seed)
        .instrument("io.weft.simulation.clients", "io.weft.simulation.servers")
        .link(Link.of(Latency.exponential(5, 20, TimeUnit.MILLISECONDS)).withResets(0.002).withBandwidth(100_000))
        .partition("client", "server", 300, 500, TimeUnit.MILLISECONDS)
        .server(SERVER, Server.of(EchoServer.class).withMaxConnections(50).withBacklog(20))
        .clientHosts("client", "client-b")
        .startWithin(200, TimeUnit.MILLISECONDS)
        .timeout(Timeout.of(2, TimeUnit.SECONDS))
        .build();
  }

  public static void main(String[] args) {
    SimulationResult<String> result = flaky(Long.parseLong(args[0])).run(EchoClient.class, 200, SERVER, 10);
    System.out.println(result.report());
  }
}
