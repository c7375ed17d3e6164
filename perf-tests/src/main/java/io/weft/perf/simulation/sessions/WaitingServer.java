package io.weft.perf.simulation.sessions;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Reads lines and answers none, until the client ends the stream: a server session waiting on a read. */
public final class WaitingServer implements SessionTask<String> {
  public WaitingServer() {}

  @Override
  public String run(Transport transport, int session) throws IOException {
    int lines = 0;
    while (transport.readLine(64) != null) {
      lines++;
    }
    return "read " + lines;
  }
}
