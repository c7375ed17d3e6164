package io.weft.transport.mina.testclient;

import io.weft.continuations.spi.EventLoopThread;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * Echoes numbered lines and answers how many of its reads returned on an event-loop thread (a
 * MINA I/O thread), as "lines:onLoop".
 */
public final class WhereResumedTask implements SessionTask<String> {
  private final int lines;

  public WhereResumedTask(int lines) {
    this.lines = lines;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    int onLoop = 0;
    for (int i = 0; i < lines; i++) {
      String sent = "session " + index + " line " + i;
      transport.writeLine(sent);
      transport.flush();
      String got = transport.readLineStrict(200);
      if (!sent.equals(got)) {
        throw new ProtocolViolationException("sent " + sent + ", got " + got);
      }
      if (EventLoopThread.inEventLoop()) {
        onLoop++;
      }
    }
    return lines + ":" + onLoop;
  }
}
