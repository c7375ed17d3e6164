package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Every third session (index % 3 == 1) throws after one exchange; the others echo twice. */
public final class FailingTask implements SessionTask<String> {
  public FailingTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    Exchange exchange = new EchoExchange(transport);
    String first = exchange.call("hello " + index);
    if (index % 3 == 1) {
      throw new IllegalStateException("session " + index + " fails on purpose");
    }
    return first + "/" + exchange.call("bye " + index);
  }
}
