package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Supplier;

/** Reads through a lambda: cannot suspend, must be refused at load time. */
public final class LambdaTask implements SessionTask<String> {
  public LambdaTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("x");
    transport.flush();
    Supplier<String> reader = () -> {
      try {
        return transport.readLine(100);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    return reader.get();
  }
}
