package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.lang.reflect.Method;

/** Reaches a read through Method.invoke: refused at load time. */
public final class ReflectionTask implements SessionTask<String> {
  public ReflectionTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    try {
      Method exchange = ReflectionTask.class.getDeclaredMethod("exchange", Transport.class);
      return (String) exchange.invoke(null, transport);
    } catch (ReflectiveOperationException e) {
      throw new IOException(e);
    }
  }

  static String exchange(Transport transport) throws IOException {
    transport.writeLine("reflected");
    transport.flush();
    return transport.readLine(100);
  }
}
