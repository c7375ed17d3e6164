package io.weft.transport;

import io.weft.transport.socket.SocketTransport;
import io.weft.transport.socket.SocketConnector;

/** The contract suite against {@link SocketTransport} over loopback TCP. */
class SocketTransportTest extends TransportContract {
  SocketTransportTest() {
    super(SocketConnector::new, SocketPeer::new);
  }
}
