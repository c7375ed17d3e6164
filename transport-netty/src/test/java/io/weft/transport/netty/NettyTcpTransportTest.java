package io.weft.transport.netty;

import io.weft.transport.SocketPeer;
import io.weft.transport.TransportContract;

/** The contract suite against {@link NettyTransport} over loopback TCP. */
class NettyTcpTransportTest extends TransportContract {
  NettyTcpTransportTest() {
    super(NettyConnector::tcp, SocketPeer::new);
  }
}
