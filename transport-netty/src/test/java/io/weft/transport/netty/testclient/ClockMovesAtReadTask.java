package io.weft.transport.netty.testclient;

import io.weft.testsupport.MovingTicker;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Sends a line with no timeout, then reads the answer (which never comes) under an operation
 * timeout and a session deadline (0 for none) of {@code boundNanos}, on a clock that reaches the
 * read's bound right after the read's own first reading of it, before the read's wait is armed.
 */
public final class ClockMovesAtReadTask implements SessionTask<String> {
  private final MovingTicker clock;
  private final long operationNanos;
  private final long deadlineNanos;

  public ClockMovesAtReadTask(MovingTicker clock, Long operationNanos, Long deadlineNanos) {
    this.clock = clock;
    this.operationNanos = operationNanos;
    this.deadlineNanos = deadlineNanos;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("session " + index);
    transport.flush();
    transport.timeout(Timeout.of(operationNanos, TimeUnit.NANOSECONDS)
        .withSessionDeadline(deadlineNanos, TimeUnit.NANOSECONDS));
    // The clock has stood still since the session's connect, so the session deadline (if any) and
    // the operation's bound both end at this reading plus the bound.
    long bound = deadlineNanos > 0L ? Math.min(operationNanos, deadlineNanos) : operationNanos;
    clock.moveAfterReads(1, clock.nanoTime() + bound);
    return transport.readLineStrict(200);
  }
}
