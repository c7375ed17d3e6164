package io.weft.continuations.testclient;

import io.weft.transport.Transport;
import java.util.concurrent.Callable;

/** A named Callable that reads: fine through its own type, refused through Callable. */
final class ReadingCall implements Callable<String> {
  private final Transport transport;

  ReadingCall(Transport transport) {
    this.transport = transport;
  }

  @Override
  public String call() throws Exception {
    transport.writeLine("called");
    transport.flush();
    return transport.readLine(100);
  }
}
