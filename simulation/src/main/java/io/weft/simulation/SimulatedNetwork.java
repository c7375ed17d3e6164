package io.weft.simulation;

import java.net.SocketAddress;

/**
 * Faults that a session inside a simulation does to its own connection or to a server, the way a
 * misbehaving peer would: for servers written to misbehave (the fault catalogue's peers) and for
 * tests. Each acts at the current virtual time and is part of the run's log.
 */
public final class SimulatedNetwork {
  private SimulatedNetwork() {}

  private static World world() {
    World world = World.current();
    if (world == null) {
      throw new IllegalStateException("no simulation runs on this thread");
    }
    return world;
  }

  private static Endpoint own() {
    World.Slot slot = world().running();
    if (slot == null || slot.endpoint == null) {
      throw new IllegalStateException("not called from a session with a connection");
    }
    return slot.endpoint;
  }

  /**
   * Resets the calling session's connection (TCP RST): the peer's next read or write fails with
   * {@code SocketException: Connection reset}, after the bytes sent before it; this side's
   * transport fails the same way.
   */
  public static void reset() {
    world().net.reset(own());
  }

  /**
   * Half-closes the calling session's connection (TCP FIN, {@code Socket.shutdownOutput}): the
   * peer reads the end of the stream after the bytes sent before it; this side can still read.
   */
  public static void shutdownOutput() {
    world().net.shutdownOutput(own());
  }

  /**
   * Stops listening at {@code address}: from now on a connect to it is refused. Connections
   * already accepted stay.
   *
   * @param address a server's address
   */
  public static void closeListener(SocketAddress address) {
    Listener listener = world().net.listener(address);
    if (listener == null) {
      throw new IllegalArgumentException("no server at " + address);
    }
    listener.closed = true;
  }

  /**
   * Resets every connection the server at {@code address} has accepted and not closed, the
   * calling session's own included: what the clients see when a server process dies.
   *
   * @param address a server's address
   */
  public static void resetAll(SocketAddress address) {
    World world = world();
    Listener listener = world.net.listener(address);
    if (listener == null) {
      throw new IllegalArgumentException("no server at " + address);
    }
    for (Endpoint end : listener.open()) {
      world.net.reset(end);
    }
  }
}
