package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;

/** Interfaces, default methods and generic interfaces (with the bridges they make) on the read path. */
final class InterfaceShapes {
  private InterfaceShapes() {}

  interface Exchanger {
    String exchange(Transport t, String line) throws IOException;

    default String twice(Transport t, String line) throws IOException {
      return exchange(t, line) + "+" + exchange(t, line + "'");
    }
  }

  static final class Plain implements Exchanger {
    @Override
    public String exchange(Transport t, String line) throws IOException {
      return Shape.echo(t, line);
    }
  }

  /** An erased parameter and a covariant return: javac adds a bridge for each. */
  interface Call<T> {
    Object call(Transport t, T argument) throws IOException;
  }

  static final class Upper implements Call<String> {
    @Override
    public String call(Transport t, String argument) throws IOException {
      return Shape.echo(t, argument).toUpperCase();
    }
  }

  static final class Box<T extends CharSequence> {
    private final T value;

    Box(T value) {
      this.value = value;
    }

    <R> R map(Transport t, java.util.function.Function<String, R> f) throws IOException {
      String got = Shape.echo(t, value.toString());
      return f.apply(got);
    }
  }
}
