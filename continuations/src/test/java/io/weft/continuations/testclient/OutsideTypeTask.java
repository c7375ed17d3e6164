package io.weft.continuations.testclient;

import io.weft.continuations.testoutside.Exchanges;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Calls its own reading class through an interface outside the instrumented packages: refused. */
public final class OutsideTypeTask implements SessionTask<String> {
  public OutsideTypeTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    Exchanges exchanger = new LocalExchanger();
    return exchanger.exchange(transport, index);
  }
}
