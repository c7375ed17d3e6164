package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** Reaches the read through Method.invoke: a JDK frame that can never suspend. */
public final class ReflectionShape extends Shape {
  public ReflectionShape(AtomicIntegerArray runs) {
    super(runs);
  }

  public String exchange(Transport t, Integer index) throws IOException {
    return echo(t, "r" + index);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    try {
      Method m = ReflectionShape.class.getMethod("exchange", Transport.class, Integer.class);
      return "got " + m.invoke(this, t, index);
    } catch (IllegalAccessException | NoSuchMethodException e) {
      throw new IllegalStateException(e);
    } catch (InvocationTargetException e) {
      throw new IOException(e.getCause());
    }
  }
}
