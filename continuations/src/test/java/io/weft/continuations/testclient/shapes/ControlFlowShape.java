package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** Reads in switch expression arms, in a try with a finally that reads too, and in a loop. */
public final class ControlFlowShape extends Shape {
  public ControlFlowShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    String picked = switch (index % 3) {
      case 0 -> echo(t, "zero" + index);
      case 1 -> {
        String a = echo(t, "one" + index);
        yield a + a.length();
      }
      default -> echo(t, "two").repeat(2);
    };
    StringBuilder out = new StringBuilder(picked);
    try {
      for (int i = 0; i < 2; i++) {
        out.append('|').append(echo(t, "loop" + i));
      }
    } finally {
      out.append("|finally ").append(echo(t, "f" + index));
    }
    return out.toString();
  }
}
