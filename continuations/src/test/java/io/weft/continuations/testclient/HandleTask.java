package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/** Reaches a read through a MethodHandle made once in the static initializer: refused at load time. */
public final class HandleTask implements SessionTask<String> {
  private static final MethodHandle EXCHANGE;

  static {
    try {
      EXCHANGE = MethodHandles.lookup().findStatic(HandleTask.class, "exchange",
          MethodType.methodType(String.class, Transport.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  public HandleTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    try {
      return (String) EXCHANGE.invokeExact(transport);
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IOException(t);
    }
  }

  static String exchange(Transport transport) throws IOException {
    transport.writeLine("handle");
    transport.flush();
    return transport.readLine(100);
  }
}
