package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Sets a ThreadLocal, then reads: the load-time report warns, naming the method. */
public final class ThreadLocalTask implements SessionTask<String> {
  private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

  public ThreadLocalTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    CURRENT.set("session " + index);
    transport.writeLine("local " + index);
    transport.flush();
    return transport.readLine(100) + "|" + CURRENT.get();
  }
}
