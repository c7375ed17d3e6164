package io.weft.continuations.testclient;

import io.weft.continuations.testoutside.Exchanges;
import io.weft.transport.Transport;
import java.io.IOException;

/** Implements an interface from a package outside the instrumented ones, and reads. */
public final class LocalExchanger implements Exchanges {
  public LocalExchanger() {}

  @Override
  public String exchange(Transport transport, int count) throws IOException {
    transport.writeLine("local " + count);
    transport.flush();
    return transport.readLine(100);
  }
}
