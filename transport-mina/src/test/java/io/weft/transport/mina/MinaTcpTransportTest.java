package io.weft.transport.mina;

import io.weft.transport.SocketPeer;
import io.weft.transport.TransportContract;

/** The contract suite against {@link MinaTransport} over loopback TCP. */
class MinaTcpTransportTest extends TransportContract {
  MinaTcpTransportTest() {
    super(MinaConnector::tcp, SocketPeer::new);
  }
}
