package io.weft.transport.mina;

import io.weft.transport.Connector;
import io.weft.transport.Peer;
import io.weft.transport.SocketPeer;
import io.weft.transport.TransportContract;
import java.io.IOException;

/**
 * The contract suite against {@link ContinuingMinaTransport} over loopback TCP, on the test
 * thread: off a continuation every wait blocks, and the contract holds just as for
 * {@link MinaTransport}.
 */
class ContinuingMinaTcpTransportTest extends TransportContract {
  private final ContinuingMinaConnector connector = ContinuingMinaConnector.tcp();

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
