package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.Callable;

/** Calls a reading method through a JDK interface (Callable): refused. */
public final class JdkInterfaceTask implements SessionTask<String> {
  public JdkInterfaceTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    Callable<String> call = new ReadingCall(transport);
    try {
      return call.call();
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }
}
