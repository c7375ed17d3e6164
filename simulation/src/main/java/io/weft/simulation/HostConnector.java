package io.weft.simulation;

import io.weft.continuations.spi.SuspendingConnector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.Objects;
import org.apache.commons.javaflow.api.continuable;

/**
 * A connector for a session's own further connections (a client that reconnects after a failure,
 * a proxy that dials out): it connects from a simulated host through the run in progress on the
 * calling thread, exactly as the sessions' own connects do. Made once with
 * {@link Simulation#connector(String)} and handed to a task's constructor like any connector;
 * valid in every run of that simulation, and only inside one.
 */
final class HostConnector implements SuspendingConnector {
  private final String host;

  HostConnector(String host) {
    this.host = Objects.requireNonNull(host, "host");
  }

  @Override
  @continuable
  public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
    World world = World.current();
    if (world == null) {
      throw new IllegalStateException("a simulated host's connector works only inside a simulation run");
    }
    return world.connector(host).connect(remote, timeout);
  }

  /** The transports belong to the run, which closes them as it ends. */
  @Override
  public void close() {
  }

  @Override
  public String toString() {
    return "simulated connector of host " + host;
  }
}
