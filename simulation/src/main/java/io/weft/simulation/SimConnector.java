package io.weft.simulation;

import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingConnector;
import io.weft.continuations.spi.WaitRegistration;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.spi.ConnectorCore;
import io.weft.transport.spi.Deadlines;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Objects;
import org.apache.commons.javaflow.api.continuable;

/**
 * The connector of one simulated host: a connect sends a SYN over the host's path to the
 * address's host and suspends the session until the answer (a round trip later), a refusal
 * ({@link ConnectException} naming the address, as every Weft connector says it) or its timeout.
 * Addresses are {@link InetSocketAddress}es whose host string names a simulated host; nothing is
 * resolved.
 */
final class SimConnector implements SuspendingConnector {
  private final World world;
  private final Net net;
  private final String host;
  /** The transports this connector opened that are still open, in the order opened. */
  private final OpenSet<SimTransport> open = new OpenSet<>();
  private boolean closed;

  SimConnector(World world, Net net, String host) {
    this.world = world;
    this.net = net;
    this.host = host;
  }

  @Override
  @continuable
  public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
    Objects.requireNonNull(remote, "remote");
    Objects.requireNonNull(timeout, "timeout");
    if (!(remote instanceof InetSocketAddress)) {
      throw new IllegalArgumentException("a simulated host connects to an InetSocketAddress, not " + remote);
    }
    if (closed) {
      throw new TransportClosedException("connector is closed");
    }
    long start = world.nanoTime();
    String what = ConnectorCore.connectWhat(remote);
    long wait = Deadlines.waitNanos(world, timeout, start, what);
    World.Slot slot = world.running();
    Net.Connecting c = net.connect(host, (InetSocketAddress) remote, slot == null ? -1 : slot.fiber.index());
    if (slot != null) {
      slot.conn = c.id;
    }
    WaitRegistration registration = wake -> c.wake = wake;
    while (!c.done) {
      long left = wait == Long.MAX_VALUE ? wait : wait - (world.nanoTime() - start);
      if (left <= 0L || !Suspend.await(registration, left)) {
        if (c.done) {
          break;
        }
        c.abandoned = true;
        c.wake = null;
        throw Deadlines.timedOut(world, timeout, start, wait, what);
      }
    }
    if (c.refused) {
      throw new ConnectException(what + " failed: Connection refused");
    }
    SimTransport transport = new SimTransport(world, net, c.endpoint, remote, timeout, start, this);
    open.add(transport);
    if (slot != null) {
      slot.endpoint = c.endpoint;
    }
    return transport;
  }

  /** Closes every transport this connector opened that is still open. */
  @Override
  public void close() {
    closed = true;
    for (SimTransport t : open.members()) {
      t.close("the connector was closed");
    }
  }

  /** {@code t}, which this connector opened, was closed. */
  void closed(SimTransport t) {
    open.remove(t);
  }
}
