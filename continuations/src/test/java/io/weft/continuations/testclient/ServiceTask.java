package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.ServiceLoader;

/** Finds its Greeter with ServiceLoader (the thread's context class loader) and calls it. */
public final class ServiceTask implements SessionTask<String> {
  public ServiceTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    for (Greeter greeter : ServiceLoader.load(Greeter.class)) {
      return greeter.greet(transport, index);
    }
    throw new IOException("no Greeter service");
  }
}
