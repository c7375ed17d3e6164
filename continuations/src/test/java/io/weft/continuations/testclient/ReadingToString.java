package io.weft.continuations.testclient;

import io.weft.transport.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;

/**
 * A class no task makes: its toString and its iterator read. It must not stop the tasks of its
 * package that use toString and for-each on their own objects.
 */
final class ReadingToString implements Iterable<String> {
  private final Transport transport;

  ReadingToString(Transport transport) {
    this.transport = transport;
  }

  @Override
  public String toString() {
    try {
      return transport.readLine(100);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Iterator<String> iterator() {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return true;
      }

      @Override
      public String next() {
        return ReadingToString.this.toString();
      }
    };
  }
}
