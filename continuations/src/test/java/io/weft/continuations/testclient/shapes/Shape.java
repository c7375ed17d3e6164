package io.weft.continuations.testclient.shapes;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A client shape of the suite: counts each session's entries into and returns from its body,
 * in a JDK-typed array the suite gives it (so it crosses the continuation loader), so that a
 * body run twice is seen whatever the shape returns.
 */
public abstract class Shape implements SessionTask<String> {
  private final AtomicIntegerArray runs;

  protected Shape(AtomicIntegerArray runs) {
    this.runs = runs;
  }

  @Override
  public final String run(Transport transport, int index) throws IOException {
    runs.incrementAndGet(2 * index);
    String value = body(transport, index);
    runs.incrementAndGet(2 * index + 1);
    return value;
  }

  protected abstract String body(Transport transport, int index) throws IOException;

  /** Writes a line and reads its echo: one suspend. */
  protected static String echo(Transport transport, String line) throws IOException {
    transport.writeLine(line);
    transport.flush();
    return transport.readLineStrict(1000);
  }
}
