package com.example.client;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/**
 * One session: send {@code lines} lines and read each back from an echo server; returns how
 * many came back equal. Plain code, no annotations: the build's Rewrite step makes it
 * suspendable.
 */
public class EchoTask implements SessionTask<Integer> {
  private final int lines;

  public EchoTask(int lines) {
    this.lines = lines;
  }

  @Override
  public Integer run(Transport transport, int index) throws Exception {
    int echoed = 0;
    for (int i = 0; i < lines; i++) {
      String line = "session " + index + " line " + i;
      transport.writeLine(line);
      transport.flush();
      if (line.equals(transport.readLineStrict(256))) {
        echoed++;
      }
    }
    return echoed;
  }
}
