package io.weft.continuations.testclient.shapes;

import io.weft.continuations.testoutside.OutsideReads;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** The session's first read is in a class outside the instrumented packages; more reads follow. */
public final class OutsideFirstShape extends Shape {
  public OutsideFirstShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    String first = OutsideReads.once(t, "o" + index);
    return first + "|" + echo(t, "then" + index);
  }
}
