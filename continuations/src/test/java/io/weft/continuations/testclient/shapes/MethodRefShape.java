package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Reads through method references of the client's own functional interfaces: bound to the
 * transport ({@code t::readLineStrict}), unbound ({@code Transport::readLineStrict}, the
 * transport passed with the call), bound to the task ({@code this::exchange}), and static
 * ({@code Shape::echo}).
 */
public final class MethodRefShape extends Shape {
  /** Reads a line of at most {@code limit} bytes. */
  interface Reading {
    String read(int limit) throws IOException;
  }

  /** Reads a line of at most {@code limit} bytes from {@code t}. */
  interface ReadingFrom {
    String read(Transport t, int limit) throws IOException;
  }

  /** One exchange over a transport. */
  interface Exchange {
    String run(Transport t, String line) throws IOException;
  }

  public MethodRefShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    Reading reading = t::readLineStrict;
    t.writeLine("m" + index);
    t.flush();
    String first = reading.read(100);
    ReadingFrom unbound = Transport::readLineStrict;
    t.writeLine("u" + index);
    t.flush();
    String second = unbound.read(t, 100);
    Exchange own = this::exchange;
    Exchange plain = Shape::echo;
    return first + "|" + second + "|" + own.run(t, "o" + index) + "|" + plain.run(t, "p" + index) + "|"
        + own.run(t, "q");
  }

  private String exchange(Transport t, String line) throws IOException {
    return echo(t, line + ":" + getClass().getSimpleName());
  }
}
