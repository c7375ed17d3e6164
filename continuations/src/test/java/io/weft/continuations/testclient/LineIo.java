package io.weft.continuations.testclient;

import io.weft.transport.Transport;
import java.io.IOException;

final class LineIo {
  private LineIo() {}

  static String readReply(Transport transport) throws IOException {
    return transport.readLineStrict(1000);
  }
}
