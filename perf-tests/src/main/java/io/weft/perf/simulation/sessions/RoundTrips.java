package io.weft.perf.simulation.sessions;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** {@code rounds} round trips of one line each with an echo server. */
public final class RoundTrips implements SessionTask<Integer> {
  private final int rounds;

  public RoundTrips(Integer rounds) {
    this.rounds = rounds;
  }

  @Override
  public Integer run(Transport transport, int session) throws IOException {
    for (int i = 0; i < rounds; i++) {
      transport.writeLine("ping " + i);
      transport.flush();
      String reply = transport.readLineStrict(64);
      if (reply.length() != 6 + (i < 10 ? 0 : 1)) {
        throw new ProtocolViolationException("unexpected reply " + ProtocolViolationException.quote(reply));
      }
    }
    return rounds;
  }
}
