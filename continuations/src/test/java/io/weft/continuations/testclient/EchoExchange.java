package io.weft.continuations.testclient;

import io.weft.transport.Transport;
import java.io.IOException;

final class EchoExchange implements Exchange {
  private final Transport transport;

  EchoExchange(Transport transport) {
    this.transport = transport;
  }

  @Override
  public String call(String line) throws IOException {
    transport.writeLine(line);
    transport.flush();
    return LineIo.readReply(transport);
  }
}
