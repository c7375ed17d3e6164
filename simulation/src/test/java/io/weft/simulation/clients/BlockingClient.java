package io.weft.simulation.clients;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.LinkedBlockingQueue;

/** Exchanges one line, then takes from a queue that nobody fills: it blocks its thread. */
public final class BlockingClient implements SessionTask<String> {
  private final LinkedBlockingQueue<String> queue = new LinkedBlockingQueue<>();

  public BlockingClient() {}

  @Override
  public String run(Transport transport, int session) throws IOException, InterruptedException {
    transport.writeLine("hello");
    transport.flush();
    transport.readLineStrict(100);
    return queue.take();
  }
}
