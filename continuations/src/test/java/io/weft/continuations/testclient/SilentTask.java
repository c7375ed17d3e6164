package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Asks for a reply that never comes: the read must time out. */
public final class SilentTask implements SessionTask<String> {
  public SilentTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("SILENT " + index);
    transport.flush();
    return transport.readLine(100);
  }
}
