package io.weft.transport.netty;

import io.weft.transport.Connector;
import io.weft.transport.Peer;
import io.weft.transport.SocketPeer;
import io.weft.transport.TransportContract;
import java.io.IOException;

/**
 * The contract suite against {@link ContinuingNettyTransport} over loopback TCP, on the test
 * thread: off a continuation every wait blocks, and the contract holds just as for
 * {@link NettyTransport}.
 */
class ContinuingNettyTcpTransportTest extends TransportContract {
  private final ContinuingNettyConnector connector = ContinuingNettyConnector.tcp();

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
