package io.weft.transport.mina;

import io.weft.transport.Connector;
import io.weft.transport.netty.SuspendingNettyConnector;
import java.util.function.Supplier;

/**
 * The suspending connectors whose I/O threads resume, and end, the sessions: one test case each.
 * MINA's twice: with its default of one processor, and with three, where a session's input, its
 * connects and its hand-offs can meet another processor's.
 */
enum SuspendingLoops {
  MINA(SuspendingMinaConnector::tcp),
  MINA_PROCESSORS(() -> SuspendingMinaConnector.builder().processorCount(3).tcp()),
  NETTY(SuspendingNettyConnector::tcp);

  final Supplier<Connector> connectors;

  SuspendingLoops(Supplier<Connector> connectors) {
    this.connectors = connectors;
  }
}
