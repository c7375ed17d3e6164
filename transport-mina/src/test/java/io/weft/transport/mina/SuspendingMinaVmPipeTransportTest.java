package io.weft.transport.mina;

import io.weft.transport.TransportContract;

/**
 * The contract suite against {@link SuspendingMinaTransport} over MINA's in-VM pipe, on the test
 * thread: off a continuation every wait blocks, and the contract holds just as for
 * {@link MinaTransport}.
 */
class SuspendingMinaVmPipeTransportTest extends TransportContract {
  SuspendingMinaVmPipeTransportTest() {
    super(SuspendingMinaConnector::vmPipe, VmPipePeer::new);
  }
}
