package io.weft.simulation.clients;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.Random;

/** Makes a Random without a seed: a simulation refuses it. */
public final class UnseededRandomClient implements SessionTask<Integer> {
  public UnseededRandomClient() {}

  @Override
  public Integer run(Transport transport, int session) {
    return new Random().nextInt(10);
  }
}
