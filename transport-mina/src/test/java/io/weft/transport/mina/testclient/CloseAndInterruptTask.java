package io.weft.transport.mina.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Says it has started (so its connect is done: MINA completes a connect only in a processor
 * turn), waits until the connector's one I/O processor is held (so MINA's close of the socket,
 * and its report, wait for the processor), closes its transport, and returns with its thread's
 * interrupt status set, as a task that caught an interrupt and kept the flag does.
 */
public final class CloseAndInterruptTask implements SessionTask<String> {
  /** How long the task waits for the test to hold the processor before it fails. */
  private static final long HOLD_WAIT_SECONDS = 60;

  private final CountDownLatch started;
  private final CountDownLatch processorHeld;

  public CloseAndInterruptTask(CountDownLatch started, CountDownLatch processorHeld) {
    this.started = started;
    this.processorHeld = processorHeld;
  }

  @Override
  public String run(Transport transport, int index) throws InterruptedException {
    started.countDown();
    if (!processorHeld.await(HOLD_WAIT_SECONDS, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the test never held the I/O processor");
    }
    transport.close();
    Thread.currentThread().interrupt();
    return "session " + index;
  }
}
