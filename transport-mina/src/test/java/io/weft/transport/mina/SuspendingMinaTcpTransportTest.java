package io.weft.transport.mina;

import io.weft.transport.SocketPeer;
import io.weft.transport.TransportContract;

/**
 * The contract suite against {@link SuspendingMinaTransport} over loopback TCP, on the test
 * thread: off a continuation every wait blocks, and the contract holds just as for
 * {@link MinaTransport}.
 */
class SuspendingMinaTcpTransportTest extends TransportContract {
  SuspendingMinaTcpTransportTest() {
    super(SuspendingMinaConnector::tcp, SocketPeer::new);
  }
}
