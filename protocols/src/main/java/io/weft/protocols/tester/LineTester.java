package io.weft.protocols.tester;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.function.LongConsumer;

/**
 * The line-echo client of the seed experiment. Each transaction writes one line,
 * {@code "weft <session> <i>"}, flushes, reads the reply with a strict, limited line read and
 * checks that it is the line sent.
 *
 * <p>Lifecycle: construct over an open transport, call {@link #run(int)} once; it closes the
 * transport when it is done, whether it succeeded or not. Plain blocking-style code: it runs
 * unchanged on a thread, a virtual thread or as a continuation.
 */
public final class LineTester {
  /** The longest reply accepted, in bytes. Every line sent is far shorter. */
  public static final int REPLY_LIMIT = 256;

  private static final LongConsumer NO_PROBE = start -> { };

  private final Transport transport;
  private final String session;
  private final LongConsumer exchangeLatency;

  /**
   * @param transport an open transport to an echo server
   * @param session what names this session in the lines sent
   */
  public LineTester(Transport transport, String session) {
    this(transport, session, NO_PROBE);
  }

  /**
   * @param transport an open transport to an echo server
   * @param session what names this session in the lines sent
   * @param exchangeLatency told each transaction's start ({@link System#nanoTime()}) once its
   *     reply has been checked, so a benchmark can record the latency of every exchange
   */
  public LineTester(Transport transport, String session, LongConsumer exchangeLatency) {
    if (exchangeLatency == null) {
      throw new IllegalArgumentException("exchangeLatency == null");
    }
    this.exchangeLatency = exchangeLatency;
    if (transport == null) {
      throw new IllegalArgumentException("transport == null");
    }
    if (session == null) {
      throw new IllegalArgumentException("session == null");
    }
    this.transport = transport;
    this.session = session;
  }

  /**
   * Runs {@code transactions} write-and-read-back transactions, then closes the transport.
   *
   * @return the number of transactions done: {@code transactions}
   * @throws ProtocolViolationException if a reply is not the line sent, quoting both
   * @throws java.io.EOFException if the server closes before a reply
   * @throws IOException if the transport fails or times out
   * @throws IllegalArgumentException if {@code transactions < 0}
   */
  public int run(int transactions) throws IOException {
    if (transactions < 0) {
      throw new IllegalArgumentException("transactions < 0: " + transactions);
    }
    try {
      for (int i = 0; i < transactions; i++) {
        String line = "weft " + session + " " + i;
        long start = System.nanoTime();
        transport.writeLine(line);
        transport.flush();
        String reply = transport.readLineStrict(REPLY_LIMIT);
        if (!reply.equals(line)) {
          throw new ProtocolViolationException("transaction " + i + ": sent "
              + ProtocolViolationException.quote(line) + ", got back "
              + ProtocolViolationException.quote(reply));
        }
        exchangeLatency.accept(start);
      }
      return transactions;
    } finally {
      transport.close();
    }
  }
}
