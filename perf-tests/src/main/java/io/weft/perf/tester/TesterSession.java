package io.weft.perf.tester;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.function.LongConsumer;

/**
 * The 2008 line tester as a plain blocking session with a latency probe: {@code transactions}
 * times write {@code "weft <session> <i>"}, flush, read the echoed line and check it. Returns
 * the number of exchanges done.
 *
 * <p>Made to run under Weft's session runner in every mode: a public class alone in its
 * package (instrument just {@code io.weft.perf.tester}), constructor arguments of JDK types
 * only, e.g. {@code runner.run(TesterSession.class, n, 10, exchangeLatency)}; the probe is
 * told each exchange's start time when its reply has been checked.
 */
public final class TesterSession implements SessionTask<Integer> {
  private static final int LINE_LIMIT = 1024;

  private final int transactions;
  private final LongConsumer latency;

  /** {@code latency} gets each exchange's start ({@link System#nanoTime()}) at its end. */
  public TesterSession(int transactions, LongConsumer latency) {
    if (transactions < 1) {
      throw new IllegalArgumentException("transactions < 1: " + transactions);
    }
    this.transactions = transactions;
    this.latency = latency;
  }

  @Override
  public Integer run(Transport transport, int index) throws Exception {
    for (int i = 0; i < transactions; i++) {
      String line = "weft " + index + " " + i;
      long start = System.nanoTime();
      transport.writeLine(line);
      transport.flush();
      String reply = transport.readLineStrict(LINE_LIMIT);
      if (!line.equals(reply)) {
        throw new ProtocolViolationException("session " + index + " expected "
            + ProtocolViolationException.quote(line) + " but got "
            + ProtocolViolationException.quote(reply));
      }
      latency.accept(start);
    }
    return transactions;
  }
}
