package io.weft.transport.netty;

import io.weft.transport.Connector;
import io.weft.transport.Peer;
import io.weft.transport.SocketPeer;
import io.weft.transport.TransportContract;
import java.io.IOException;

/** The contract suite against {@link NettyTransport} over loopback TCP. */
class NettyTcpTransportTest extends TransportContract {
  private final NettyConnector connector = NettyConnector.tcp();

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
