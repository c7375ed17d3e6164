package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Reads inside lambdas of the client's own functional interface: one capturing the transport and
 * a local, called in a loop; one capturing the task itself and a counter of the session's; one that
 * calls another lambda; and a lambda handed to a method of the client's that calls it.
 */
public final class LambdaShape extends Shape {
  /** One exchange, as the client names it. */
  interface Step {
    String exchange(String line) throws IOException;
  }

  public LambdaShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    String prefix = "l" + index;
    Step step = line -> echo(t, prefix + line);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      out.append(step.exchange("-" + i)).append('|');
    }
    int[] calls = {0};
    Step counted = line -> {
      calls[0]++;
      return echo(t, line + "#" + calls[0] + "/" + tag());
    };
    Step twice = line -> step.exchange(line) + "+" + counted.exchange(line);
    out.append(counted.exchange("c")).append('|').append(twice.exchange("t")).append('|');
    return out.append(through(step, "h")).toString();
  }

  private String tag() {
    return getClass().getSimpleName();
  }

  private static String through(Step step, String line) throws IOException {
    return step.exchange(line) + "/" + step.exchange(line + "'");
  }
}
