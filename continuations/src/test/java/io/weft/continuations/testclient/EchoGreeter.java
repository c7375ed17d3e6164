package io.weft.continuations.testclient;

import io.weft.transport.Transport;
import java.io.IOException;

/** The Greeter named in META-INF/services; it reads. */
public final class EchoGreeter implements Greeter {
  public EchoGreeter() {}

  @Override
  public String greet(Transport transport, int index) throws IOException {
    transport.writeLine("greetings " + index);
    transport.flush();
    return transport.readLineStrict(100);
  }
}
