package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A ThreadLocal set before a read and read after it: the rewrite gives each session its own value
 * across the wait, as a thread of its own would.
 */
public final class ThreadLocalShape extends Shape {
  private static final ThreadLocal<String> NAME = new ThreadLocal<>();

  public ThreadLocalShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    NAME.set("session " + index);
    String got = echo(t, "tl " + index);
    String after = NAME.get();
    NAME.remove();
    return got + " as " + after;
  }
}
