package io.weft.continuations.testclient;

import io.weft.continuations.testoutside.Exchanger;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * Reads through a helper outside the instrumented packages that it finds by name at run time,
 * so the load-time check cannot see it: the run-time check must catch it and name the helper's
 * frame.
 */
public final class HiddenHelperTask implements SessionTask<String> {
  private static final String HELPER = "io.weft.continuations.testoutside.HelperExchanger";

  public HiddenHelperTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("hello " + index);
    transport.flush();
    String hello = transport.readLineStrict(100);
    Exchanger helper;
    try {
      helper = (Exchanger) Class.forName(HELPER).getConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IOException(e);
    }
    return hello + "|" + helper.exchange(transport, 2);
  }
}
