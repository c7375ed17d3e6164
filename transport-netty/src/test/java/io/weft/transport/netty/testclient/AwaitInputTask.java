package io.weft.transport.netty.testclient;

import io.weft.continuations.spi.TransportSpiAccess;
import io.weft.testsupport.MovingTicker;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * Waits for input (which never comes) through {@code SuspendingWaits.awaitInput} with the
 * transport's own read waiter for {@code boundNanos}, on a clock more than that bound past any
 * reading the waiter holds (it has taken none: its reading is its first, 0), and that reaches the
 * wait's end right after the wait's own second reading of it (its start, then its timer's
 * arming); answers what the wait answered and how far the clock moved meanwhile.
 */
public final class AwaitInputTask implements SessionTask<String> {
  private final MovingTicker clock;
  private final long boundNanos;

  public AwaitInputTask(MovingTicker clock, Long boundNanos) {
    this.clock = clock;
    this.boundNanos = boundNanos;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    clock.moveAfterReads(1, 2 * boundNanos + Math.max(0L, clock.nanoTime()));
    clock.nanoTime();
    long start = clock.nanoTime();
    clock.moveAfterReads(2, start + boundNanos);
    boolean arrived = TransportSpiAccess.waits(transport).awaitInput(
        TransportSpiAccess.state(transport), TransportSpiAccess.readWaiter(transport), boundNanos);
    return (arrived ? "input" : "timed out") + " after " + (clock.nanoTime() - start);
  }
}
