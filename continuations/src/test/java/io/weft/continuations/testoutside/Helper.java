package io.weft.continuations.testoutside;

import io.weft.transport.Transport;
import java.io.IOException;

/** A helper in a package the tests do not instrument: its frames are never rewritten. */
public final class Helper {
  private Helper() {}

  public static String readLines(Transport transport, int count) throws IOException {
    return readLoop(transport, count);
  }

  static String readLoop(Transport transport, int count) throws IOException {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < count; i++) {
      out.append(transport.readLineStrict(100)).append('|');
    }
    return out.toString();
  }
}
