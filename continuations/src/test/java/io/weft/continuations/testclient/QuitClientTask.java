package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** try-with-resources on the client's own type: its reading close() is called through that type. */
public final class QuitClientTask implements SessionTask<String> {
  public QuitClientTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    String hello;
    try (QuitClient client = new QuitClient(transport)) {
      hello = client.hello(index);
    }
    return hello;
  }
}
