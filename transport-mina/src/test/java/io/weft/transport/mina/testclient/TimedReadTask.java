package io.weft.transport.mina.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Sends a line with no timeout, then bounds the transport by the given operation timeout and
 * session deadline (0 for none) and reads the answer; plain client code.
 */
public final class TimedReadTask implements SessionTask<String> {
  private final long operationNanos;
  private final long deadlineNanos;

  public TimedReadTask(long operationNanos, long deadlineNanos) {
    this.operationNanos = operationNanos;
    this.deadlineNanos = deadlineNanos;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("session " + index);
    transport.flush();
    transport.timeout(Timeout.of(operationNanos, TimeUnit.NANOSECONDS)
        .withSessionDeadline(deadlineNanos, TimeUnit.NANOSECONDS));
    return transport.readLineStrict(200);
  }
}
