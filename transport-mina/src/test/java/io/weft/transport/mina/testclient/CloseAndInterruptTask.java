package io.weft.transport.mina.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.concurrent.CountDownLatch;

/**
 * Closes its transport while the connector's one I/O processor is held (so MINA's close of the
 * socket, and its report, wait for the processor), and returns with its thread's interrupt
 * status set, as a task that caught an interrupt and kept the flag does.
 */
public final class CloseAndInterruptTask implements SessionTask<String> {
  private final CountDownLatch processorHeld;

  public CloseAndInterruptTask(CountDownLatch processorHeld) {
    this.processorHeld = processorHeld;
  }

  @Override
  public String run(Transport transport, int index) throws InterruptedException {
    processorHeld.await();
    transport.close();
    Thread.currentThread().interrupt();
    return "session " + index;
  }
}
