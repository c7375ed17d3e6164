package io.weft.continuations.testclient.shapes;

import io.weft.continuations.testoutside.OutsideReads;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** The session's last read is two calls deep in a class outside the instrumented packages. */
public final class OutsideDeepLastShape extends Shape {
  public OutsideDeepLastShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    String first = echo(t, "first" + index);
    return first + "|" + OutsideReads.twoDeep(t, "last" + index);
  }
}
