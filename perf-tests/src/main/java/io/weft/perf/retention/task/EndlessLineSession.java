package io.weft.perf.retention.task;

import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.function.IntConsumer;

/**
 * One session against a peer that sends a line that never ends: reads a line with the given
 * limit (over MINA's 64 KiB inbound limit, so the read lifts it and the buffer grows), expects
 * {@link LineTooLongException}, then tells {@code finished} its index. Returns the limit the
 * line passed.
 *
 * <p>Alone in its package with {@link EchoOnceSession}, so a runner instruments just these.
 */
public final class EndlessLineSession implements SessionTask<Long> {
  private final IntConsumer finished;
  private final int lineLimit;

  public EndlessLineSession(IntConsumer finished, Integer lineLimit) {
    this.finished = finished;
    this.lineLimit = lineLimit;
  }

  @Override
  public Long run(Transport transport, int index) throws Exception {
    long limit;
    try {
      String line = transport.readLineStrict(lineLimit);
      throw new ProtocolViolationException("session " + index + " expected an endless line, got one of "
          + line.length() + " characters");
    } catch (LineTooLongException expected) {
      limit = expected.limit();
    }
    finished.accept(index);
    return limit;
  }
}
