package io.weft.continuations.testclient;

import io.weft.transport.LineParsing;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Sends a line and reads the echo as a client that parses lines in place only where it can
 * ({@code RedisClient}'s shape): with {@link LineParsing#parseLine} if the transport offers it,
 * else with {@code readLineStrict}. {@code over} is the transport it reads through: "runner" (what
 * the runner hands it: the checked wrapper over the pipe, whose own {@code parseLine} reads with
 * the pipe's {@code readLineStrict}), "own" ({@link OwnForwarding}, a forwarding transport of the
 * task's that offers no {@code LineParsing}) or "ownLines" ({@link OwnForwardingLines}, one that
 * forwards {@code parseLine} too).
 */
public final class ParseLineTask implements SessionTask<String> {
  private final String over;

  public ParseLineTask() {
    this("runner");
  }

  public ParseLineTask(String over) {
    this.over = over;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    Transport t = over.equals("own") ? new OwnForwarding(transport)
        : over.equals("ownLines") ? new OwnForwardingLines(transport) : transport;
    t.writeLine("hello " + index);
    t.flush();
    // The echo comes only once this read waits: the read suspends.
    if (t instanceof LineParsing) {
      return ((LineParsing) t).parseLine(100,
          (buf, offset, length) -> "parsed " + new String(buf, offset, length, StandardCharsets.UTF_8));
    }
    return "read " + t.readLineStrict(100);
  }
}
