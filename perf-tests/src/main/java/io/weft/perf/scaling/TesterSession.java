package io.weft.perf.scaling;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.perf.internal.ExchangeLatency;

/**
 * The 2008 line tester as a plain blocking session with a latency probe: {@code transactions}
 * times write {@code "weft <session> <i>"}, flush, read the echoed line and check it. Returns
 * the number of exchanges done. Used by the thread-per-session modes until the protocols
 * module's LineTesterTask can carry a latency probe.
 */
public final class TesterSession implements SessionTask<Integer> {
  private static final int LINE_LIMIT = 1024;

  private final int transactions;
  private final ExchangeLatency latency;

  public TesterSession(int transactions, ExchangeLatency latency) {
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
      long end = System.nanoTime();
      if (!line.equals(reply)) {
        throw new ProtocolViolationException("session " + index + " expected "
            + ProtocolViolationException.quote(line) + " but got "
            + ProtocolViolationException.quote(reply));
      }
      latency.record(start, end);
    }
    return transactions;
  }
}
