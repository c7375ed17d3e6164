package io.weft.transport.mina.testclient;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Sends numbered lines to an echo server and checks each echo; plain client code. */
public final class EchoLinesTask implements SessionTask<String> {
  private final int lines;

  public EchoLinesTask(int lines) {
    this.lines = lines;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    int bytes = 0;
    for (int i = 0; i < lines; i++) {
      String sent = "session " + index + " line " + i;
      String got = exchange(transport, sent);
      if (!sent.equals(got)) {
        throw new ProtocolViolationException("sent " + sent + ", got " + got);
      }
      bytes += got.length();
    }
    return index + ":" + bytes;
  }

  private static String exchange(Transport transport, String line) throws IOException {
    transport.writeLine(line);
    transport.flush();
    return transport.readLineStrict(200);
  }
}
