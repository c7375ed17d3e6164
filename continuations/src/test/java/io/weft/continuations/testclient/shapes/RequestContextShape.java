package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A withInitial thread-local behind a helper class, set before reads two frames down and read
 * after each; removed at the end, after which it is its initial value again.
 */
public final class RequestContextShape extends Shape {
  public RequestContextShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    RequestContext.enter("request " + index);
    String first = exchange(t, "rc " + index);
    RequestContext.enter("request " + index + "b");
    String second = exchange(t, "again " + index);
    RequestContext.leave();
    return first + "|" + second + "|" + RequestContext.current();
  }

  private static String exchange(Transport t, String line) throws IOException {
    String echoed = echo(t, line);
    return echoed + " in " + RequestContext.current();
  }
}
