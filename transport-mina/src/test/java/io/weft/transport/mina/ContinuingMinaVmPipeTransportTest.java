package io.weft.transport.mina;

import io.weft.transport.Connector;
import io.weft.transport.Peer;
import io.weft.transport.TransportContract;
import java.io.IOException;

/**
 * The contract suite against {@link ContinuingMinaTransport} over MINA's in-VM pipe, on the test
 * thread: off a continuation every wait blocks, and the contract holds just as for
 * {@link MinaTransport}.
 */
class ContinuingMinaVmPipeTransportTest extends TransportContract {
  private final ContinuingMinaConnector connector = ContinuingMinaConnector.vmPipe();

  @Override
  protected Peer newPeer() throws IOException {
    return new VmPipePeer();
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
