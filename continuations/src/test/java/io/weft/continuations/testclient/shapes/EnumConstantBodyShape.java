package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Reads in an enum's own methods: an abstract one overridden in each constant's body, and a
 * plain one. Both run rewritten, as in SYNC.
 */
public final class EnumConstantBodyShape extends Shape {
  public EnumConstantBodyShape(AtomicIntegerArray runs) {
    super(runs);
  }

  enum Op {
    ADD {
      @Override
      String apply(Transport t, int i) throws IOException {
        return echo(t, "add" + (i + 1));
      }
    },
    NEG {
      @Override
      String apply(Transport t, int i) throws IOException {
        return echo(t, "neg" + (-i));
      }
    };

    abstract String apply(Transport t, int i) throws IOException;

    String twice(Transport t, int i) throws IOException {
      return apply(t, i) + apply(t, i + 1);
    }
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    return Op.values()[index % 2].twice(t, index);
  }
}
