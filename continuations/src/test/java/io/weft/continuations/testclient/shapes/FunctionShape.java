package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Reads inside lambdas of the JDK's functional interfaces that only the client's own code calls: a
 * {@code Function} applied directly and by a helper of the client's, and a {@code Supplier}.
 */
public final class FunctionShape extends Shape {
  public FunctionShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    Function<String, String> exchange = line -> {
      try {
        return echo(t, line);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    Supplier<String> next = () -> exchange.apply("s" + index);
    try {
      return exchange.apply("f" + index) + "|" + applyTwice(exchange, "a" + index) + "|" + next.get();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static String applyTwice(Function<String, String> f, String line) {
    return f.apply(line) + "," + f.apply(line + "'");
  }
}
