package io.weft.transport.netty;

import io.weft.transport.SocketPeer;
import io.weft.transport.TransportContract;

/**
 * The contract suite against {@link SuspendingNettyTransport} over loopback TCP, on the test
 * thread: off a continuation every wait blocks, and the contract holds just as for
 * {@link NettyTransport}.
 */
class SuspendingNettyTcpTransportTest extends TransportContract {
  SuspendingNettyTcpTransportTest() {
    super(SuspendingNettyConnector::tcp, SocketPeer::new);
  }
}
