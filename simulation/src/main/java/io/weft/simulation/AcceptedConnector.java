package io.weft.simulation;

import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.net.SocketAddress;

/**
 * How a server session gets its accepted transport through the same session frame as a client:
 * its "address" is the accepted connection, and its connect hands out the transport made for it,
 * at once, with the server's timeout and a session deadline from now.
 */
final class AcceptedConnector implements Connector {
  /** An accepted connection as the address a server session connects to. */
  static final class Accepted extends SocketAddress {
    private static final long serialVersionUID = 1L;
    final transient SimTransport transport;

    Accepted(SimTransport transport) {
      this.transport = transport;
    }

    @Override
    public String toString() {
      return "accepted conn " + transport.end.conn;
    }
  }

  @Override
  public Transport connect(SocketAddress remote, Timeout timeout) {
    SimTransport transport = ((Accepted) remote).transport;
    transport.timeout(timeout);
    return transport;
  }

  @Override
  public void close() {
  }
}
