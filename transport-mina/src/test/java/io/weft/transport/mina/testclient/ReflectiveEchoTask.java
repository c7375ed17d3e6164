package io.weft.transport.mina.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;

/** Reaches its read through Method.invoke, which can never suspend, and catches Exception around it. */
public final class ReflectiveEchoTask implements SessionTask<String> {
  public ReflectiveEchoTask() {}

  public String exchange(Transport transport, String line) throws IOException {
    transport.writeLine(line);
    transport.flush();
    return transport.readLineStrict(200);
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    try {
      Object got = ReflectiveEchoTask.class.getMethod("exchange", Transport.class, String.class)
          .invoke(this, transport, "reflective " + index);
      return "got " + got;
    } catch (InvocationTargetException | NoSuchMethodException | IllegalAccessException e) {
      return "caught " + e;
    }
  }
}
