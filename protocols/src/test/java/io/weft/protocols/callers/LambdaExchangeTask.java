package io.weft.protocols.callers;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * Exchanges lines through a lambda and method references of its own functional interfaces: a
 * lambda capturing the transport, bound ({@code t::readLineStrict}), unbound
 * ({@code Transport::readLineStrict}), bound to the task and static. Every read waits for the
 * server, so in continuation mode each suspends inside the lambda's class.
 */
public final class LambdaExchangeTask implements SessionTask<String> {
  /** One exchange, as the client names it. */
  interface Step {
    String exchange(String line) throws IOException;
  }

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

  @Override
  public String run(Transport t, int index) throws IOException {
    Step step = line -> send(t, index + ":" + line).readLineStrict(200);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      out.append(step.exchange("s" + i)).append('|');
    }
    Reading bound = t::readLineStrict;
    send(t, index + ":bound");
    out.append(bound.read(200)).append('|');
    ReadingFrom unbound = Transport::readLineStrict;
    send(t, index + ":unbound");
    out.append(unbound.read(t, 200)).append('|');
    Exchange own = this::exchange;
    Exchange plain = LambdaExchangeTask::exchangeStatic;
    return out.append(own.run(t, index + ":own")).append('|').append(plain.run(t, index + ":static")).toString();
  }

  private String exchange(Transport t, String line) throws IOException {
    return send(t, line).readLineStrict(200) + "@" + getClass().getSimpleName();
  }

  private static String exchangeStatic(Transport t, String line) throws IOException {
    return send(t, line).readLineStrict(200);
  }

  private static Transport send(Transport t, String line) throws IOException {
    t.writeLine(line);
    t.flush();
    return t;
  }
}
