package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;

/**
 * Reads inside lambdas and method references of more of the JDK's functional interfaces, each
 * called only by the client's own code: a {@code Consumer}, a {@code BiFunction}, a {@code Runnable}
 * calling the consumer, a {@code Callable}, a bound method reference as a {@code UnaryOperator},
 * and interfaces with a primitive argument ({@code IntFunction}) or result ({@code ToIntFunction}).
 */
public final class JdkInterfacesShape extends Shape {
  public JdkInterfacesShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    StringBuilder out = new StringBuilder();
    try {
      Consumer<String> sink = line -> out.append(exchange(t, line)).append('|');
      sink.accept("c" + index);
      BiFunction<String, Integer, String> pair = (line, n) -> exchange(t, line + "#" + n);
      out.append(pair.apply("b", index)).append('|');
      Runnable twice = () -> {
        sink.accept("r1");
        sink.accept("r2");
      };
      twice.run();
      Callable<String> call = () -> echo(t, "k" + index);
      out.append(call.call()).append('|');
      UnaryOperator<String> relayed = new Relay(t)::upper;
      out.append(relayed.apply("u" + index)).append('|');
      IntFunction<String> nth = n -> exchange(t, "n" + n);
      out.append(nth.apply(index)).append('|');
      ToIntFunction<String> length = line -> exchange(t, line).length();
      return out.append(length.applyAsInt("len" + index)).toString();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The session's own object for a bound method reference: one task instance serves every session. */
  private static final class Relay {
    private final Transport t;

    Relay(Transport t) {
      this.t = t;
    }

    String upper(String line) {
      return exchange(t, line.toUpperCase(Locale.ROOT));
    }
  }

  private static String exchange(Transport t, String line) {
    try {
      return echo(t, line);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
