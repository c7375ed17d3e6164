package io.weft.continuations.testoutside;

import io.weft.transport.Transport;
import java.io.IOException;

/** A helper in a package the tests do not instrument: its frames are never rewritten. */
public final class Helper {
  private Helper() {}

  public static String exchangeLines(Transport transport, int count) throws IOException {
    return exchangeLoop(transport, count);
  }

  /** Each round trip waits for the server's delayed echo, so each read really suspends. */
  static String exchangeLoop(Transport transport, int count) throws IOException {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < count; i++) {
      transport.writeLine("line " + i);
      transport.flush();
      out.append(transport.readLineStrict(100)).append('|');
    }
    return out.toString();
  }
}
