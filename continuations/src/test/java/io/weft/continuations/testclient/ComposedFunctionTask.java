package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Function;

/** Composes a reading Function with andThen, whose JDK lambda calls it: refused at load time. */
public final class ComposedFunctionTask implements SessionTask<String> {
  public ComposedFunctionTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    Function<String, String> exchange = line -> {
      try {
        transport.writeLine(line);
        transport.flush();
        return transport.readLine(100);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    return exchange.andThen(String::trim).apply("c" + index);
  }
}
