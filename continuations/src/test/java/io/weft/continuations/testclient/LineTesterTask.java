package io.weft.continuations.testclient;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * The line tester as the runner tests need it: sends numbered lines, checks each echo, returns a
 * summary the tests compare across modes. Protocols' LineTesterTask is the one line tester
 * elsewhere; this module's tests cannot use it (protocols depends on this module).
 */
public final class LineTesterTask implements SessionTask<String> {
  private final int lines;

  public LineTesterTask(int lines) {
    this.lines = lines;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    Exchange exchange = new EchoExchange(transport);
    int bytes = 0;
    for (int i = 0; i < lines; i++) {
      String sent = "session " + index + " line " + i;
      String got = exchange.call(sent);
      if (!sent.equals(got)) {
        throw new ProtocolViolationException("echo mismatch: sent " + ProtocolViolationException.quote(sent)
            + ", got " + ProtocolViolationException.quote(got));
      }
      bytes += got.length();
    }
    return index + ":" + lines + ":" + bytes;
  }
}
