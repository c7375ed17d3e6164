package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Reads in a synchronized method of the shared task: refused, the monitor cannot hold. */
public final class SyncMethodTask implements SessionTask<String> {
  public SyncMethodTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    return exchange(transport, index);
  }

  private synchronized String exchange(Transport transport, int index) throws IOException {
    transport.writeLine("locked " + index);
    transport.flush();
    return transport.readLine(100);
  }
}
