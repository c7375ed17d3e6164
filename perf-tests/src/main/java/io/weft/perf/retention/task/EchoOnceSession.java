package io.weft.perf.retention.task;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.function.IntConsumer;

/**
 * One exchange with an echo server: write a line, flush, read it back and check it, then tell
 * {@code finished} its index. Returns the line.
 */
public final class EchoOnceSession implements SessionTask<String> {
  private final IntConsumer finished;

  public EchoOnceSession(IntConsumer finished) {
    this.finished = finished;
  }

  @Override
  public String run(Transport transport, int index) throws Exception {
    String line = "weft " + index;
    transport.writeLine(line);
    transport.flush();
    String reply = transport.readLineStrict(1024);
    if (!line.equals(reply)) {
      throw new ProtocolViolationException("session " + index + " expected "
          + ProtocolViolationException.quote(line) + " but got " + ProtocolViolationException.quote(reply));
    }
    finished.accept(index);
    return reply;
  }
}
