package io.weft.continuations.testoutside;

import io.weft.transport.Transport;
import java.io.IOException;

/** Reads from a package the suite never instruments: its frames are never rewritten. */
public final class OutsideReads {
  private OutsideReads() {}

  public static String once(Transport t, String line) throws IOException {
    t.writeLine(line);
    t.flush();
    return "outside " + t.readLineStrict(1000);
  }

  public static String twoDeep(Transport t, String line) throws IOException {
    return once(t, line).toUpperCase();
  }
}
