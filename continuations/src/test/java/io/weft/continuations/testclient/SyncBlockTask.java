package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Reads inside a synchronized block on a shared monitor: refused, the monitor cannot hold. */
public final class SyncBlockTask implements SessionTask<String> {
  private static final Object LOCK = new Object();

  public SyncBlockTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    synchronized (LOCK) {
      transport.writeLine("locked " + index);
      transport.flush();
      return transport.readLine(100);
    }
  }
}
