package io.weft.simulation.prerewritten;

import io.weft.simulation.Latency;
import io.weft.simulation.Link;
import io.weft.simulation.Server;
import io.weft.simulation.Simulation;
import io.weft.simulation.SimulationResult;
import io.weft.simulation.servers.EchoServer;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of its own that runs {@link TimedEcho} in a simulation and prints each session's timed
 * round trip, and which loader defined the class it named: run under the agent, the agent has
 * rewritten the application's copy, and the simulation's loader its own.
 */
public final class TimedEchoMain {
  private TimedEchoMain() {}

  public static void main(String[] args) {
    InetSocketAddress server = InetSocketAddress.createUnresolved("server", 7);
    SimulationResult<Long> result = Simulation.builder()
        .instrument("io.weft.simulation.prerewritten", "io.weft.simulation.servers")
        .link(Link.of(Latency.fixed(50, TimeUnit.MILLISECONDS)))
        .server(server, Server.of(EchoServer.class))
        .build()
        .run(TimedEcho.class, 2, server);
    System.out.println("all succeeded " + result.allSucceeded());
    result.outcomes().forEach(o -> System.out.println("round trip nanos " + o.value()));
  }
}
