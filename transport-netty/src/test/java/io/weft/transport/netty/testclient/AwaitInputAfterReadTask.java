package io.weft.transport.netty.testclient;

import io.weft.continuations.spi.TimedRegistration;
import io.weft.continuations.spi.TransportSpiAccess;
import io.weft.continuations.spi.WaitRegistration;
import io.weft.testsupport.MovingTicker;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.transport.spi.ConnectionState;
import io.weft.transport.spi.Inbound;
import java.io.IOException;

/**
 * Leaves the transport's read waiter with a reading of a real read, then waits through it with
 * {@code SuspendingWaits.awaitInput}: sends a line to a server that holds its replies, and reads
 * the answer (no timeout, so the read's wait is never armed), the server released by the read's
 * own first reading of the clock, so that the read suspends with that reading taken and is woken
 * by the answer, not by time; then, having polled for more (none), on a clock moved more than
 * {@code boundNanos} past that reading, waits for input that never comes for {@code boundNanos},
 * the clock reaching the wait's end right after the wait's own second reading (its start, then
 * its timer's arming). Answers the line, what the waiter's {@code timedOn()} said once the read
 * was done, what the wait answered and how far the clock moved meanwhile.
 */
public final class AwaitInputAfterReadTask implements SessionTask<String> {
  private final MovingTicker clock;
  private final Runnable releaseServer;
  private final long boundNanos;

  public AwaitInputAfterReadTask(MovingTicker clock, Runnable releaseServer, Long boundNanos) {
    this.clock = clock;
    this.releaseServer = releaseServer;
    this.boundNanos = boundNanos;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("session " + index);
    transport.flush();
    // The answer cannot be buffered before the read has taken its reading: the read suspends.
    clock.runAfterReads(1, releaseServer);
    String line = transport.readLineStrict(200);
    WaitRegistration waiter = TransportSpiAccess.readWaiter(transport);
    Object timedOn = ((TimedRegistration) waiter).timedOn();
    // As a user of awaitInput polls first: nothing more is buffered, so the wait is for new input.
    ConnectionState<?, ?> state = TransportSpiAccess.state(transport);
    int polled = state.poll(new byte[1], 0, 1);
    if (polled != Inbound.NO_BYTES_YET) {
      throw new IllegalStateException("polled " + polled + " after the line: the server answered more");
    }

    clock.moveAfterReads(1, 2 * boundNanos + Math.max(0L, clock.nanoTime()));
    clock.nanoTime();
    long start = clock.nanoTime();
    clock.moveAfterReads(2, start + boundNanos);
    boolean arrived = TransportSpiAccess.waits(transport).awaitInput(state, waiter, boundNanos);
    return line + "; timedOn " + timedOn + "; " + (arrived ? "input" : "timed out") + " after "
        + (clock.nanoTime() - start);
  }
}
