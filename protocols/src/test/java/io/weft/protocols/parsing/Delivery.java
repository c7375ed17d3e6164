package io.weft.protocols.parsing;

import io.weft.testsupport.InMemoryTransport;
import java.util.function.Function;

/** How a parser test's scripted reply reaches the client: whole, or one byte per read. */
enum Delivery {
  WHOLE(InMemoryTransport::of),
  ONE_BYTE_AT_A_TIME(InMemoryTransport::oneByteAtATime);

  private final Function<String, InMemoryTransport> transport;

  Delivery(Function<String, InMemoryTransport> transport) {
    this.transport = transport;
  }

  /** A transport whose reads deliver {@code script} this way. */
  InMemoryTransport of(String script) {
    return transport.apply(script);
  }
}
