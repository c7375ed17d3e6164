package io.weft.continuations.testclient.shapes;

import io.weft.continuations.testoutside.OutsideReads;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** The session's last read is in a class outside the instrumented packages, one call deep. */
public final class OutsideLastShape extends Shape {
  public OutsideLastShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    String first = echo(t, "first" + index);
    return first + "|" + OutsideReads.once(t, "last" + index);
  }
}
