package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** Reads in an inner class, an anonymous class, a record's method, and by enum value. */
public final class InnerRecordEnumShape extends Shape {
  private final String prefix = "in";

  public InnerRecordEnumShape(AtomicIntegerArray runs) {
    super(runs);
  }

  final class Inner {
    String go(Transport t, int i) throws IOException {
      return echo(t, prefix + i);
    }
  }

  record Point(int x, int y) {
    String exchange(Transport t) throws IOException {
      return echo(t, x + "," + y);
    }
  }

  enum Op { ADD, NEG }

  private static String apply(Op op, Transport t, int i) throws IOException {
    return switch (op) {
      case ADD -> echo(t, "add" + (i + 1));
      case NEG -> echo(t, "neg" + (-i));
    };
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    InterfaceShapes.Exchanger anonymous = new InterfaceShapes.Exchanger() {
      @Override
      public String exchange(Transport tr, String line) throws IOException {
        return echo(tr, "anon " + line);
      }
    };
    return new Inner().go(t, index) + "|" + new Point(index, -index).exchange(t) + "|"
        + apply(Op.values()[index % 2], t, index) + "|" + anonymous.exchange(t, "x" + index);
  }
}
