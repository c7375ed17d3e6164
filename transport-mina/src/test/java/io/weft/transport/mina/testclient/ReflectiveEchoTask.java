package io.weft.transport.mina.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;

/**
 * Reaches its read through Method.invoke, which can never suspend, and catches Exception around
 * it. It reads before it writes: an echo server sends nothing unasked, so the read always
 * suspends (in SYNC it would wait for ever; it is run only where the suspend is refused).
 */
public final class ReflectiveEchoTask implements SessionTask<String> {
  public ReflectiveEchoTask() {}

  public String exchange(Transport transport, String line) throws IOException {
    String first = transport.readLineStrict(200);
    transport.writeLine(line);
    transport.flush();
    return first + transport.readLineStrict(200);
  }

  /**
   * The name comes from a method, not a constant in {@code run}: the load-time check then cannot
   * resolve the reflective call (with a constant it refuses the task before any session), and
   * this task is here for the run-time check.
   */
  private static String exchangeName() {
    return "exchange";
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    try {
      Object got = ReflectiveEchoTask.class.getMethod(exchangeName(), Transport.class, String.class)
          .invoke(this, transport, "reflective " + index);
      return "got " + got;
    } catch (InvocationTargetException | NoSuchMethodException | IllegalAccessException e) {
      return "caught " + e;
    }
  }
}
