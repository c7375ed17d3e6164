package io.weft.transport.mina.testclient;

import io.weft.continuations.spi.EventLoopThread;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * One echoed line (so that the session continues where the reply arrived), then a long line
 * that the server only counts, flushed, and the session ends at once: the runner closes the
 * transport right after the flush. Answers whether the flush ran on an event loop.
 */
public final class FlushThenCloseTask implements SessionTask<String> {
  private final int bulkBytes;

  public FlushThenCloseTask(int bulkBytes) {
    this.bulkBytes = bulkBytes;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("hello " + index);
    transport.flush();
    transport.readLineStrict(200);
    StringBuilder bulk = new StringBuilder(bulkBytes);
    bulk.append("bulk ");
    while (bulk.length() < bulkBytes) {
      bulk.append((char) ('a' + bulk.length() % 26));
    }
    transport.writeLine(bulk.toString());
    transport.flush();
    return EventLoopThread.inEventLoop() ? "loop" : "worker";
  }
}
