package io.weft.transport;

/** The contract suite against {@link SocketTransport} over loopback TCP. */
class SocketTransportTest extends TransportContract {
  SocketTransportTest() {
    super(SocketConnector::new, SocketPeer::new);
  }
}
