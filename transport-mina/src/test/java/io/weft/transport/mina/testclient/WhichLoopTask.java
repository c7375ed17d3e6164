package io.weft.transport.mina.testclient;

import io.weft.continuations.spi.EventLoopThread;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * Echoes numbered lines and answers which thread its last read returned on: "loop " and the
 * thread's id when that was an event-loop thread (a MINA I/O processor), else "off".
 */
public final class WhichLoopTask implements SessionTask<String> {
  private final int lines;

  public WhichLoopTask(int lines) {
    this.lines = lines;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    for (int i = 0; i < lines; i++) {
      String sent = "session " + index + " line " + i;
      transport.writeLine(sent);
      transport.flush();
      String got = transport.readLineStrict(200);
      if (!sent.equals(got)) {
        throw new ProtocolViolationException("sent " + sent + ", got " + got);
      }
    }
    return EventLoopThread.inEventLoop() ? "loop " + Thread.currentThread().getId() : "off";
  }
}
