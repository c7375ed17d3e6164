package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** A read through an interface call and through one of its default methods. */
public final class InterfaceShape extends Shape {
  public InterfaceShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    InterfaceShapes.Exchanger e = new InterfaceShapes.Plain();
    return e.exchange(t, "i" + index) + "|" + e.twice(t, "d" + index);
  }
}
