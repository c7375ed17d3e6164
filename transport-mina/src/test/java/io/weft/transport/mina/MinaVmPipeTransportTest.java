package io.weft.transport.mina;

import io.weft.transport.TransportContract;

/** The contract suite against {@link MinaTransport} over MINA's in-VM pipe. */
class MinaVmPipeTransportTest extends TransportContract {
  MinaVmPipeTransportTest() {
    super(MinaConnector::vmPipe, VmPipePeer::new);
  }
}
