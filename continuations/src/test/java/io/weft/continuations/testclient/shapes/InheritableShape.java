package io.weft.continuations.testclient.shapes;

import io.weft.continuations.testing.RunContext;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * An inheritable thread-local that the run's thread set: read at the start, changed before a read
 * and read after it, then put back; and one of the shape's own, set before a read and read after.
 * Every session must start with the run thread's value, whatever the sessions before it on the
 * same thread changed.
 */
public final class InheritableShape extends Shape {
  private static final InheritableThreadLocal<String> OWN = new InheritableThreadLocal<>();

  public InheritableShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    String inherited = RunContext.INHERITED.get();
    RunContext.INHERITED.set("changed by " + index);
    OWN.set("own " + index);
    String echoed = echo(t, "itl " + index);
    String result = echoed + " " + inherited + "/" + RunContext.INHERITED.get() + "/" + OWN.get();
    RunContext.INHERITED.set(inherited);
    OWN.remove();
    return result;
  }
}
