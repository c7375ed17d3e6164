package io.weft.perf.simulation.sessions;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.transport.TransportTimeoutException;
import java.io.IOException;

/**
 * Sends one line, then waits for a reply that never comes, until its read times out: a session
 * that spends its life waiting on a read, as its server's session does.
 */
public final class WaitingClient implements SessionTask<String> {
  public WaitingClient() {}

  @Override
  public String run(Transport transport, int session) throws IOException {
    transport.writeLine("hello");
    transport.flush();
    try {
      transport.readLine(64);
      return "answered";
    } catch (TransportTimeoutException e) {
      return "waited";
    }
  }
}
