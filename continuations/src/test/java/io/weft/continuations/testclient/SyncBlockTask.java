package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * Reads inside a synchronized block on a shared monitor and wakes the monitor's waiters: refused,
 * since the block's monitor is the session's across the read and notify cannot reach its waiters.
 */
public final class SyncBlockTask implements SessionTask<String> {
  private static final Object LOCK = new Object();

  public SyncBlockTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    synchronized (LOCK) {
      transport.writeLine("locked " + index);
      transport.flush();
      String line = transport.readLine(100);
      LOCK.notifyAll();
      return line;
    }
  }
}
