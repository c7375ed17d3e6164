package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** try-with-resources on a variable of the JDK type AutoCloseable: its close() is refused. */
public final class AutoCloseableTask implements SessionTask<String> {
  public AutoCloseableTask() {}

  @Override
  public String run(Transport transport, int index) throws Exception {
    try (AutoCloseable client = new QuitClient(transport)) {
      return "opened " + index;
    }
  }
}
