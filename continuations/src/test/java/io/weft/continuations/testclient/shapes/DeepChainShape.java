package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** Six instrumented frames between the task and the read. */
public final class DeepChainShape extends Shape {
  public DeepChainShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    return a(t, index) + "/" + a(t, index + 1);
  }

  private String a(Transport t, int i) throws IOException {
    return b(t, i).toUpperCase();
  }

  private static String b(Transport t, int i) throws IOException {
    String x = c(t, i);
    return x + x.length();
  }

  private static String c(Transport t, int i) throws IOException {
    return echo(t, "deep " + i);
  }
}
