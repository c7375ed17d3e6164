package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.slf4j.MDC;

/** Puts its session into slf4j's MDC before reads and reads it back after each. */
public final class MdcShape extends Shape {
  public MdcShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    String before = MDC.get("session");
    MDC.put("session", "s" + index);
    if (MDC.get("session") == null) {
      throw new IllegalStateException("slf4j's MDC adapter keeps nothing: the shape would prove nothing");
    }
    String first = echo(t, "mdc " + index) + " as " + MDC.get("session");
    MDC.put("step", "2");
    String second = echo(t, "again " + index) + " as " + MDC.get("session") + "/" + MDC.get("step");
    MDC.remove("session");
    MDC.remove("step");
    return "before " + before + "|" + first + "|" + second;
  }
}
