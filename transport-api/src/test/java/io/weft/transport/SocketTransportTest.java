package io.weft.transport;

import java.io.IOException;

/** The contract suite against {@link SocketTransport} over loopback TCP. */
class SocketTransportTest extends TransportContract {
  private final SocketConnector connector = new SocketConnector();

  @Override
  protected Peer newPeer() throws IOException {
    return new SocketPeer();
  }

  @Override
  protected Connector connector() {
    return connector;
  }

  @Override
  protected void closeConnector() {
    connector.close();
  }
}
