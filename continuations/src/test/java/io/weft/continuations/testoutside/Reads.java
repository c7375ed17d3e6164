package io.weft.continuations.testoutside;

import io.weft.transport.Transport;
import java.io.IOException;

/** Helpers in a package the tests do not instrument, whose first wait is a read. */
public final class Reads {
  private Reads() {}

  public static String readFirst(Transport transport) throws IOException {
    String first = transport.readLine(100);
    transport.writeLine("after " + first);
    return first;
  }
}
