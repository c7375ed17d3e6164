package io.weft.transport.mina;

import io.weft.transport.Connector;
import io.weft.transport.Peer;
import io.weft.transport.SocketPeer;
import io.weft.transport.TransportContract;
import java.io.IOException;

/** The contract suite against {@link MinaTransport} over loopback TCP. */
class MinaTcpTransportTest extends TransportContract {
  private final MinaConnector connector = MinaConnector.tcp();

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
