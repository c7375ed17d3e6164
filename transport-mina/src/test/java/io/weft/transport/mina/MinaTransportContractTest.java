package io.weft.transport.mina;

import io.weft.transport.SocketPeer;
import io.weft.transport.TransportContract;
import java.util.List;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract suite against MINA's two transports, each over loopback TCP and over MINA's in-VM
 * pipe. {@link SuspendingMinaTransport} runs on the test thread: off a continuation every wait
 * blocks, and the contract holds just as for {@link MinaTransport}.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("transports")
class MinaTransportContractTest extends TransportContract {
  MinaTransportContractTest(Case transport) {
    super(transport);
  }

  static List<Case> transports() {
    return List.of(
        new Case("MinaTransport over TCP", MinaConnector::tcp, SocketPeer::new),
        new Case("MinaTransport over the VM pipe", MinaConnector::vmPipe, VmPipePeer::new),
        new Case("SuspendingMinaTransport over TCP", SuspendingMinaConnector::tcp, SocketPeer::new),
        new Case("SuspendingMinaTransport over the VM pipe", SuspendingMinaConnector::vmPipe, VmPipePeer::new));
  }
}
