package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Returns a record; every fourth session throws the client's own exception after one exchange. */
public final class ReplyTask implements SessionTask<Reply> {
  public ReplyTask() {}

  @Override
  public Reply run(Transport transport, int index) throws IOException {
    transport.writeLine("reply " + index);
    transport.flush();
    String line = transport.readLineStrict(100);
    if (index % 4 == 3) {
      throw new ShapeException("session " + index + " refuses " + line);
    }
    return new Reply(index, line);
  }
}
