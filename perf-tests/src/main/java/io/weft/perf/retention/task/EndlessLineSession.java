package io.weft.perf.retention.task;

import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.function.IntConsumer;

/**
 * One session against a peer that sends a line that never ends: reads a line with a limit of
 * {@link #LINE_LIMIT} (over the MINA inbound limit, so the buffer grows), expects
 * {@link LineTooLongException}, then tells {@code finished} its index. Returns the limit the
 * line passed.
 *
 * <p>Alone in its package with {@link EchoOnceSession}, so a runner instruments just these.
 */
public final class EndlessLineSession implements SessionTask<Long> {
  /** The line limit: 256 KiB, four times MINA's default inbound limit. */
  public static final int LINE_LIMIT = 256 * 1024;

  private final IntConsumer finished;

  public EndlessLineSession(IntConsumer finished) {
    this.finished = finished;
  }

  @Override
  public Long run(Transport transport, int index) throws Exception {
    long limit;
    try {
      String line = transport.readLineStrict(LINE_LIMIT);
      throw new ProtocolViolationException("session " + index + " expected an endless line, got one of "
          + line.length() + " characters");
    } catch (LineTooLongException expected) {
      limit = expected.limit();
    }
    finished.accept(index);
    return limit;
  }
}
