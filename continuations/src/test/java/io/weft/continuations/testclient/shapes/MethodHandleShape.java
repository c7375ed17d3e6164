package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** Reaches the read through a MethodHandle: JDK frames that can never suspend. */
public final class MethodHandleShape extends Shape {
  private static final MethodHandle EXCHANGE;

  static {
    try {
      EXCHANGE = MethodHandles.lookup().findStatic(MethodHandleShape.class, "exchange",
          MethodType.methodType(String.class, Transport.class, int.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  public MethodHandleShape(AtomicIntegerArray runs) {
    super(runs);
  }

  static String exchange(Transport t, int index) throws IOException {
    return echo(t, "h" + index);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    try {
      return "got " + (String) EXCHANGE.invokeExact(t, index);
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IOException(e);
    }
  }
}
