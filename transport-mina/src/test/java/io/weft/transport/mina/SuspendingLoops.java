package io.weft.transport.mina;

import io.weft.transport.Connector;
import io.weft.transport.netty.SuspendingNettyConnector;
import java.util.function.Supplier;

/** The suspending connectors whose I/O threads resume, and end, the sessions: one test case each. */
enum SuspendingLoops {
  MINA(SuspendingMinaConnector::tcp),
  NETTY(SuspendingNettyConnector::tcp);

  final Supplier<Connector> connectors;

  SuspendingLoops(Supplier<Connector> connectors) {
    this.connectors = connectors;
  }
}
