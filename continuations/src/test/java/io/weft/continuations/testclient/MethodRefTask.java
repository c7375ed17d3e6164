package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Reads through a method reference to the transport itself: refused at load time. */
public final class MethodRefTask implements SessionTask<String> {
  /** A reading function of the task's own: the reference's class is still made by the JDK. */
  interface Reading {
    String read(int limit) throws IOException;
  }

  public MethodRefTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("ref " + index);
    transport.flush();
    Reading reading = transport::readLine;
    return reading.read(100);
  }
}
