package io.weft.simulation.clients;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.Random;

/**
 * Makes a Random without a seed, inside an expression (other values on the operand stack), and a
 * subclass of Random whose constructor calls {@code super()}: a simulation seeds both from its run.
 */
public final class UnseededRandomClient implements SessionTask<String> {
  public UnseededRandomClient() {}

  /** A Random of the session's code, made through the unseeded constructor. */
  static final class Dice extends Random {
    private static final long serialVersionUID = 1L;

    Dice() {
      super();
    }
  }

  @Override
  public String run(Transport transport, int session) {
    return new Random().nextLong() + " " + new Dice().nextInt(1_000_000);
  }
}
