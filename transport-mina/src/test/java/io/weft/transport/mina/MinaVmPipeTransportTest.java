package io.weft.transport.mina;

import io.weft.transport.Connector;
import io.weft.transport.Peer;
import io.weft.transport.TransportContract;
import java.io.IOException;

/** The contract suite against {@link MinaTransport} over MINA's in-VM pipe. */
class MinaVmPipeTransportTest extends TransportContract {
  private final MinaConnector connector = MinaConnector.vmPipe();

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
