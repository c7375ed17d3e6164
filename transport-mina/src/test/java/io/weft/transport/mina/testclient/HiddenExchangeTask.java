package io.weft.transport.mina.testclient;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import io.weft.transport.mina.outside.LineExchange;

/**
 * {@code rounds} echo round trips in rewritten code, then one through a helper outside the
 * instrumented packages that it finds by name at run time: past the run's first suspends, which
 * the runtime checks frame by frame, only the transport's entry check and the check at the wait
 * are left to catch the helper's swallowed suspend.
 */
public final class HiddenExchangeTask implements SessionTask<String> {
  private static final String HELPER = "io.weft.transport.mina.outside.AfterSwallowExchange";
  private final int rounds;

  public HiddenExchangeTask(Integer rounds) {
    this.rounds = rounds;
  }

  @Override
  public String run(Transport transport, int session) throws IOException {
    for (int i = 0; i < rounds; i++) {
      transport.writeLine("round " + i);
      transport.flush();
      String echo = transport.readLineStrict(64);
      if (!echo.equals("round " + i)) {
        throw new ProtocolViolationException("unexpected echo " + ProtocolViolationException.quote(echo));
      }
    }
    LineExchange helper;
    try {
      helper = (LineExchange) Class.forName(HELPER).getConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IOException(e);
    }
    return helper.exchange(transport);
  }
}
