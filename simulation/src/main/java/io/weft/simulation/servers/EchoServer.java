package io.weft.simulation.servers;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * A line echo server: each line that arrives goes back with CRLF, until the client ends the
 * stream. A session per connection; returns how many lines it echoed.
 */
public final class EchoServer implements SessionTask<String> {
  /** The longest line it takes, without its line end. */
  public static final int LINE_LIMIT = 64 * 1024;

  /** An echo server. */
  public EchoServer() {}

  @Override
  public String run(Transport transport, int session) throws IOException {
    int lines = 0;
    for (String line = transport.readLine(LINE_LIMIT); line != null; line = transport.readLine(LINE_LIMIT)) {
      transport.writeLine(line);
      transport.flush();
      lines++;
    }
    return "echoed " + lines;
  }
}
