package io.weft.transport.mina.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Closes its transport while the connector's one I/O processor is held (by the test, inside a
 * filter of another session), then lets the processor go on, so that it dies before the turn in
 * which it would have closed the socket.
 */
public final class CloseBeforeProcessorDiesTask implements SessionTask<String> {
  private final CountDownLatch connected;
  private final CountDownLatch processorHeld;
  private final CountDownLatch closed;

  public CloseBeforeProcessorDiesTask(CountDownLatch connected, CountDownLatch processorHeld, CountDownLatch closed) {
    this.connected = connected;
    this.processorHeld = processorHeld;
    this.closed = closed;
  }

  @Override
  public String run(Transport transport, int index) throws InterruptedException {
    connected.countDown();
    if (!processorHeld.await(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the test never held the I/O processor");
    }
    transport.close();
    closed.countDown();
    return "closed";
  }
}
