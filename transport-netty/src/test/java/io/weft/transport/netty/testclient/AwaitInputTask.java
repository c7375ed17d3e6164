package io.weft.transport.netty.testclient;

import io.weft.continuations.spi.TransportSpiAccess;
import io.weft.testsupport.MovingTicker;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportTimeoutException;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Sends a line (never answered), lets a read time out after {@code boundNanos} (its wait leaves
 * its reading in the transport's read waiter), then waits for input through {@code
 * SuspendingWaits.awaitInput} with that same waiter for {@code boundNanos}, on a clock that
 * reaches the wait's end right after the wait's own second reading of it (its start, then its
 * timer's arming); answers what the wait answered and how far the clock moved meanwhile.
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
    transport.writeLine("session " + index);
    transport.flush();
    transport.timeout(Timeout.of(boundNanos, TimeUnit.NANOSECONDS));
    clock.moveAfterReads(1, clock.nanoTime() + boundNanos);
    try {
      transport.readLineStrict(200);
      return "the first read answered";
    } catch (TransportTimeoutException expected) {
      // Its reading stays in the waiter as it was, unless spent.
    }
    long start = clock.nanoTime();
    clock.moveAfterReads(2, start + boundNanos);
    boolean arrived = TransportSpiAccess.waits(transport).awaitInput(
        TransportSpiAccess.state(transport), TransportSpiAccess.readWaiter(transport), boundNanos);
    return (arrived ? "input" : "timed out") + " after " + (clock.nanoTime() - start);
  }
}
