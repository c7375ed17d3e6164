package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Overridable calls that can suspend, through each kind of receiver the resume-time check keeps:
 * {@code this} (a template method calling its own overridable step), a parameter the method never
 * assigns, and a parameter the method assigns while the call's arguments are evaluated, so that the
 * object called is not the one the parameter holds at the call. Each exchanger tags its result, so
 * a call or a resume into the wrong object shows in the value.
 */
public final class ReceiverShape extends Shape {
  public ReceiverShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    Step plain = new Step();
    Step upper = new UpperStep();
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      out.append(plain.twice(t, "s" + index + "-" + i)).append('|');
      out.append(upper.twice(t, "u" + index + "-" + i)).append('|');
      out.append(via(i % 2 == 0 ? plain : upper, t, "v" + index + "-" + i)).append('|');
      out.append(reassigned(plain, upper, t, "r" + index + "-" + i)).append('|');
    }
    return out.toString();
  }

  /** A parameter never assigned: the receiver. */
  private static String via(Step step, Transport t, String line) throws IOException {
    return step.step(t, line);
  }

  /** {@code first} is called, then changed to {@code second} by the argument's evaluation. */
  private static String reassigned(Step first, Step second, Transport t, String line) throws IOException {
    return first.step(t, line + (first = second).tag()) + first.step(t, line + "'");
  }

  /** A template method: {@link #twice} calls the overridable {@link #step} on itself. */
  static class Step {
    String twice(Transport t, String line) throws IOException {
      return step(t, line) + "+" + step(t, line + "'");
    }

    String step(Transport t, String line) throws IOException {
      return tag() + echo(t, line);
    }

    String tag() {
      return "p:";
    }
  }

  static final class UpperStep extends Step {
    @Override
    String step(Transport t, String line) throws IOException {
      return tag() + echo(t, line).toUpperCase();
    }

    @Override
    String tag() {
      return "U:";
    }
  }
}
