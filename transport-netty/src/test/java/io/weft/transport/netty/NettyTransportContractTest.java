package io.weft.transport.netty;

import io.weft.transport.SocketPeer;
import io.weft.transport.TransportContract;
import java.util.List;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract suite against Netty's two transports over loopback TCP.
 * {@link SuspendingNettyTransport} runs on the test thread: off a continuation every wait blocks,
 * and the contract holds just as for {@link NettyTransport}.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("transports")
class NettyTransportContractTest extends TransportContract {
  NettyTransportContractTest(Case transport) {
    super(transport);
  }

  static List<Case> transports() {
    return List.of(
        new Case("NettyTransport over TCP", NettyConnector::tcp, SocketPeer::new),
        new Case("SuspendingNettyTransport over TCP", SuspendingNettyConnector::tcp, SocketPeer::new));
  }
}
