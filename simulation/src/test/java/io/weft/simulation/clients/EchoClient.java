package io.weft.simulation.clients;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Sends {@code rounds} lines and checks each echo; returns the last. */
public final class EchoClient implements SessionTask<String> {
  private final int rounds;

  public EchoClient(Integer rounds) {
    this.rounds = rounds;
  }

  @Override
  public String run(Transport transport, int session) throws IOException {
    String last = null;
    for (int i = 0; i < rounds; i++) {
      String line = "session " + session + " round " + i;
      transport.writeLine(line);
      transport.flush();
      last = transport.readLineStrict(1024);
      if (!last.equals(line)) {
        throw new ProtocolViolationException("expected " + line + " but got " + ProtocolViolationException.quote(last));
      }
    }
    return last;
  }
}
