package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * Makes one echo exchange (so the session suspends and resumes through the transport's calls) and
 * returns the class loader that defined the transport object the runner handed it, for a test
 * that watches that loader go away with its runner.
 */
public final class TransportLoaderTask implements SessionTask<ClassLoader> {
  public TransportLoaderTask() {
  }

  @Override
  public ClassLoader run(Transport transport, int index) throws IOException {
    new EchoExchange(transport).call("session " + index);
    return transport.getClass().getClassLoader();
  }
}
