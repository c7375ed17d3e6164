package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Sends a line and parses the echo with {@link Transport#parseLine}, through the transport the
 * runner hands it (the checked wrapper over the pipe, which has no {@code parseLine} of its own)
 * or, with {@code forwarding}, through {@link ForwardingWithoutParseLine}, which forwards every
 * read but {@code parseLine}: there the default runs, and the read must fail, not answer.
 */
public final class ParseLineTask implements SessionTask<String> {
  private final boolean forwarding;

  public ParseLineTask() {
    this(false);
  }

  public ParseLineTask(boolean forwarding) {
    this.forwarding = forwarding;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    Transport t = forwarding ? new ForwardingWithoutParseLine(transport) : transport;
    t.writeLine("hello " + index);
    t.flush();
    // The echo comes 50 ms later: the read suspends.
    return "parsed " + t.parseLine(100, (buf, offset, length) -> new String(buf, offset, length, StandardCharsets.UTF_8));
  }
}
