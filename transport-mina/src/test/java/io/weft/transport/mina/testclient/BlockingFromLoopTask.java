package io.weft.transport.mina.testclient;

import io.weft.continuations.spi.EventLoopThread;
import io.weft.transport.BlockingOperationException;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * One echoed line, then, where the session runs on an event loop, a connect through a blocking
 * connector: answers "refused" (the connector failed fast), "blocked" (it connected, blocking
 * the I/O thread) or "worker" (the session was not on an event loop).
 */
public final class BlockingFromLoopTask implements SessionTask<String> {
  private final Connector blocking;
  private final SocketAddress address;

  public BlockingFromLoopTask(Connector blocking, SocketAddress address) {
    this.blocking = blocking;
    this.address = address;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("hello " + index);
    transport.flush();
    transport.readLineStrict(200);
    if (!EventLoopThread.inEventLoop()) {
      return "worker";
    }
    try {
      blocking.connect(address, Timeout.of(5, TimeUnit.SECONDS)).close();
      return "blocked";
    } catch (BlockingOperationException e) {
      return "refused";
    }
  }
}
