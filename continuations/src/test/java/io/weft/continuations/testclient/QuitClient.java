package io.weft.continuations.testclient;

import io.weft.transport.Transport;
import java.io.IOException;

/** A client whose close() says QUIT and reads the answer, as SMTP, POP3 and IMAP clients do. */
public final class QuitClient implements AutoCloseable {
  private final Transport transport;

  public QuitClient(Transport transport) {
    this.transport = transport;
  }

  public String hello(int index) throws IOException {
    transport.writeLine("hello " + index);
    transport.flush();
    return transport.readLine(100);
  }

  @Override
  public void close() throws IOException {
    transport.writeLine("QUIT");
    transport.flush();
    transport.readLine(100);
  }
}
