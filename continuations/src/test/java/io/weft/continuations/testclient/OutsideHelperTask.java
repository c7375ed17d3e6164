package io.weft.continuations.testclient;

import io.weft.continuations.testoutside.Helper;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * Reads through a helper outside the instrumented packages, two calls deep, so the load-time
 * check cannot see it: the run-time check must catch it and name the helper's frame.
 */
public final class OutsideHelperTask implements SessionTask<String> {
  public OutsideHelperTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("hello " + index);
    transport.flush();
    String hello = transport.readLineStrict(100);
    return hello + "|" + Helper.exchangeLines(transport, 2);
  }
}
