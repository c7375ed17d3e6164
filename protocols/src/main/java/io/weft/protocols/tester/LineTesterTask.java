package io.weft.protocols.tester;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.function.LongConsumer;

/**
 * The experiment's session as the runner runs it: one {@link LineTester} of a fixed number of
 * transactions per session, named by the session's index. A plain named class with a public
 * constructor, so the runner can load it by name through its instrumenting class loader.
 */
public final class LineTesterTask implements SessionTask<Integer> {
  private final int transactions;
  private final LongConsumer exchangeLatency;

  /**
   * @param transactions write-and-read-back transactions per session
   * @throws IllegalArgumentException if {@code transactions < 0}
   */
  public LineTesterTask(int transactions) {
    this(transactions, start -> { });
  }

  /**
   * @param transactions write-and-read-back transactions per session
   * @param exchangeLatency told each transaction's start ({@link System#nanoTime()}) once its
   *     reply has been checked, from every session
   * @throws IllegalArgumentException if {@code transactions < 0}
   */
  public LineTesterTask(int transactions, LongConsumer exchangeLatency) {
    if (transactions < 0) {
      throw new IllegalArgumentException("transactions < 0: " + transactions);
    }
    if (exchangeLatency == null) {
      throw new IllegalArgumentException("exchangeLatency == null");
    }
    this.transactions = transactions;
    this.exchangeLatency = exchangeLatency;
  }

  /** Transactions per session. */
  public int transactions() {
    return transactions;
  }

  /** Runs the session; returns the number of transactions done. */
  @Override
  public Integer run(Transport transport, int index) throws Exception {
    return new LineTester(transport, Integer.toString(index), exchangeLatency).run(transactions);
  }
}
