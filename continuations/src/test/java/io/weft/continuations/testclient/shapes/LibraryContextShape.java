package io.weft.continuations.testclient.shapes;

import io.weft.continuations.testoutside.Library;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A library that is not rewritten keeps the session's context in its thread-local across a read:
 * right only where a ThreadContext carries it (else refused at load time).
 */
public final class LibraryContextShape extends Shape {
  public LibraryContextShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    Library.begin("context " + index);
    String echoed = echo(t, "lib " + index);
    String after = Library.current();
    Library.end();
    return echoed + " in " + after;
  }
}
