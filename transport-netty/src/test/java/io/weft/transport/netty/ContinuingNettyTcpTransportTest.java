package io.weft.transport.netty;

import io.weft.transport.SocketPeer;
import io.weft.transport.TransportContract;

/**
 * The contract suite against {@link ContinuingNettyTransport} over loopback TCP, on the test
 * thread: off a continuation every wait blocks, and the contract holds just as for
 * {@link NettyTransport}.
 */
class ContinuingNettyTcpTransportTest extends TransportContract {
  ContinuingNettyTcpTransportTest() {
    super(ContinuingNettyConnector::tcp, SocketPeer::new);
  }
}
