package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * Waits on its own monitor in a synchronized method that reads: refused, since the method's
 * monitor is the session's across the read and the thread's wait would not release it.
 */
public final class SyncMethodTask implements SessionTask<String> {
  public SyncMethodTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    return exchange(transport, index);
  }

  private synchronized String exchange(Transport transport, int index) throws IOException {
    transport.writeLine("locked " + index);
    transport.flush();
    try {
      wait(1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return transport.readLine(100);
  }
}
