package io.weft.simulation.prerewritten;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** One echo round trip, timed with System.nanoTime: a class the Rewrite tool rewrites (it waits on a read). */
public final class TimedEcho implements SessionTask<Long> {
  public TimedEcho() {}

  @Override
  public Long run(Transport transport, int session) throws IOException {
    long start = System.nanoTime();
    transport.writeLine("ping");
    transport.flush();
    transport.readLine(64);
    return System.nanoTime() - start;
  }
}
