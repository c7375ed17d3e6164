package io.weft.continuations.testclient;

import io.weft.continuations.testoutside.Reads;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** One call deep into a package outside the instrumented ones, which reads first: refused. */
public final class OutsideReadFirstTask implements SessionTask<String> {
  public OutsideReadFirstTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("hello " + index);
    transport.flush();
    return Reads.readFirst(transport);
  }
}
