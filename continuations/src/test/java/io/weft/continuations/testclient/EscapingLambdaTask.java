package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.function.Function;

/**
 * Applies a reading Function from its own code, and also hands it to Optional.map, which calls it
 * from the JDK: refused at load time.
 */
public final class EscapingLambdaTask implements SessionTask<String> {
  public EscapingLambdaTask() {}

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
    String first = exchange.apply("a" + index);
    return first + Optional.of("b").map(exchange).orElse("");
  }
}
