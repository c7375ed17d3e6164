package io.weft.transport.mina.testclient;

import io.weft.continuations.spi.LoopThread;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import io.weft.transport.mina.outside.LineExchange;

/**
 * Echo round trips in rewritten code ({@code rounds} of them on the I/O thread), then one through a helper outside the
 * instrumented packages that it finds by name at run time: past the run's first suspends, which
 * the runtime checks frame by frame, only the transport's entry check and the check at the wait
 * are left to catch the helper's swallowed suspend.
 */
public final class HiddenExchangeTask implements SessionTask<String> {
  private static final String HELPER = "io.weft.transport.mina.outside.AfterSwallowExchange";
  private static final int MAX_ROUNDS = 1000;
  private final int rounds;

  public HiddenExchangeTask(Integer rounds) {
    this.rounds = rounds;
  }

  @Override
  public String run(Transport transport, int session) throws IOException {
    // Rounds until `rounds` of them ran on the connection's I/O thread. There, each read waits
    // (its reply is appended by this very thread, after the slice), so each of those rounds arms
    // a wait: past the run's first 64 suspends, which walk the stack and would catch the helper's
    // suspend at its wait instead of at its next call.
    int onLoop = 0;
    for (int i = 0; i < MAX_ROUNDS && onLoop < rounds; i++) {
      transport.writeLine("round " + i);
      transport.flush();
      String echo = transport.readLineStrict(64);
      if (!echo.equals("round " + i)) {
        throw new ProtocolViolationException("unexpected echo " + ProtocolViolationException.quote(echo));
      }
      if (Thread.currentThread() instanceof LoopThread) {
        onLoop++;
      }
    }
    if (onLoop < rounds) {
      throw new IOException("only " + onLoop + " of " + rounds + " rounds ran on an I/O thread");
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
