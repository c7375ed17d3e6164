package io.weft.continuations.passes;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** A task that starts a thread on its way: what a load-time rule can refuse. */
public final class ThreadStartingTask implements SessionTask<String> {
  @Override
  public String run(Transport transport, int index) throws IOException {
    Starter.start();
    return transport.readLine(100);
  }

  static final class Starter {
    private Starter() {}

    static void start() {
      new Thread("starter").start();
    }
  }

  /** Starts a thread too, but no task reaches it. */
  public static void unreached() {
    new Thread("unreached").start();
  }
}
