package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.List;

/** toString and for-each on objects that never read, beside a class (not made here) that does. */
public final class ToStringTask implements SessionTask<String> {
  public ToStringTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    Object reply = new Reply(index, "x");
    StringBuilder out = new StringBuilder(reply.toString());
    for (String word : List.of("a", "b")) {
      transport.writeLine(word + index);
      transport.flush();
      out.append('|').append(transport.readLineStrict(100));
    }
    return out.toString();
  }
}
