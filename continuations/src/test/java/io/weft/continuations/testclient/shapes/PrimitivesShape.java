package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** A local of every primitive type, and arguments of each, live across a read. */
public final class PrimitivesShape extends Shape {
  public PrimitivesShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    byte b = (byte) index;
    short s = (short) (index * 3);
    char c = (char) ('a' + index % 26);
    long l = index * 1_000_000_007L;
    float f = index / 3f;
    double d = index / 7d;
    boolean z = index % 2 == 0;
    String got = echo(t, "p" + index);
    return got + across(t, b, s, c, index, l, f, d, z) + b + s + c + l + f + d + z;
  }

  private static String across(Transport t, byte b, short s, char c, int i, long l, float f, double d, boolean z)
      throws IOException {
    String got = echo(t, "q" + i);
    return got + ":" + b + s + c + i + l + f + d + z;
  }
}
