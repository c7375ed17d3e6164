package io.weft.transport;

import io.weft.transport.socket.SocketConnector;
import io.weft.transport.socket.SocketTransport;
import java.util.List;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** The contract suite against {@link SocketTransport} over loopback TCP. */
@ParameterizedClass(name = "{0}")
@MethodSource("transports")
class SocketTransportTest extends TransportContract {
  SocketTransportTest(Case transport) {
    super(transport);
  }

  static List<Case> transports() {
    return List.of(new Case("SocketTransport over TCP", SocketConnector::new, SocketPeer::new));
  }
}
