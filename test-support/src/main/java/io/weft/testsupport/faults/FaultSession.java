package io.weft.testsupport.faults;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportTimeoutException;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * One session of the fault contract suite: what a careful client does against the peer of its
 * case ({@code io.weft.testsupport.FaultCase}), written once for every transport and mode. It
 * sends one request line and reads the answer the way a protocol parser would, and lets the
 * transport's exception end the session: the suite then checks the exception's exact type.
 *
 * <p>In {@code CONTINUATIONS} mode the runner loads this class by name through its
 * instrumenting loader (package {@value #PACKAGE}), so it takes and returns JDK types only:
 * the case of each session by index, and an array where each session records how long the task
 * ran (its own start to its end, {@code System.nanoTime()}), which the suite compares with the
 * case's timeout.
 */
public final class FaultSession implements SessionTask<String> {
  /** The package to instrument for continuations. */
  public static final String PACKAGE = "io.weft.testsupport.faults";
  /** Limit of the lines the peer should answer with. */
  public static final int LINE_LIMIT = 8 * 1024;
  /** Limit for the one long line of LINE_1_MB: above a megabyte, below two. */
  public static final int LONG_LINE_LIMIT = 2 * 1024 * 1024;

  private final String[] cases;
  private final long[] elapsedNanos;
  private final long stallTimeoutMillis;
  private final long dripDeadlineMillis;

  /**
   * @param cases the case name of each session, by index
   * @param elapsedNanos filled in by each session at its index
   * @param stallTimeoutMillis the operation timeout the STALL case sets
   * @param dripDeadlineMillis the session deadline the DRIP case sets
   */
  public FaultSession(String[] cases, long[] elapsedNanos, Long stallTimeoutMillis, Long dripDeadlineMillis) {
    this.cases = cases;
    this.elapsedNanos = elapsedNanos;
    this.stallTimeoutMillis = stallTimeoutMillis;
    this.dripDeadlineMillis = dripDeadlineMillis;
  }

  @Override
  public String run(Transport transport, int session) throws IOException {
    long start = System.nanoTime();
    try {
      return play(cases[session], transport, session);
    } finally {
      elapsedNanos[session] = System.nanoTime() - start;
    }
  }

  private String play(String kind, Transport transport, int session) throws IOException {
    String request = "session " + session + " " + kind;
    if (kind.equals("FLUSH_TO_NON_READER")) {
      return flushUntilBlocked(transport);
    }
    if (kind.equals("STALL")) {
      transport.timeout(Timeout.of(stallTimeoutMillis, TimeUnit.MILLISECONDS));
    } else if (kind.equals("DRIP")) {
      transport.timeout(transport.timeout().withSessionDeadline(dripDeadlineMillis, TimeUnit.MILLISECONDS));
    }
    transport.writeLine(request);
    transport.flush();
    if (kind.equals("REPLY_1_MIB") || kind.equals("REPLY_16_MIB")) {
      return readBigReply(transport);
    }
    if (kind.equals("LINE_1_MB")) {
      String line = transport.readLineStrict(LONG_LINE_LIMIT);
      for (int i = 0; i < line.length(); i++) {
        if (line.charAt(i) != 'a') {
          throw new ProtocolViolationException("long line has '" + line.charAt(i) + "' at " + i);
        }
      }
      return "line of " + line.length();
    }
    String reply = transport.readLineStrict(kind.equals("DRIP") ? LONG_LINE_LIMIT : LINE_LIMIT);
    if (!reply.equals(request)) {
      throw new ProtocolViolationException("expected the echo of \"" + request + "\" but got "
          + ProtocolViolationException.quote(reply));
    }
    if (kind.equals("CONTROL")) {
      for (int i = 1; i < 3; i++) {
        String again = request + " " + i;
        transport.writeLine(again);
        transport.flush();
        String echoed = transport.readLineStrict(LINE_LIMIT);
        if (!echoed.equals(again)) {
          throw new ProtocolViolationException("expected the echo of \"" + again + "\" but got "
              + ProtocolViolationException.quote(echoed));
        }
      }
    } else if (kind.equals("HALF_CLOSE")) {
      // The peer has shut down its side: the next read must see the end of the stream.
      String after = transport.readLineStrict(LINE_LIMIT);
      return "read past a half-close: " + after;
    }
    return "echoed";
  }

  /**
   * Writes and flushes {@link #CHUNK} at a time, at most {@link #MAX_CHUNKS} times, to a peer
   * that never reads, under the STALL operation timeout: a flush must time out, and leave the
   * transport closed.
   */
  private String flushUntilBlocked(Transport transport) throws IOException {
    transport.timeout(Timeout.of(stallTimeoutMillis, TimeUnit.MILLISECONDS));
    try {
      for (int i = 0; i < MAX_CHUNKS; i++) {
        transport.write(CHUNK);
        transport.flush();
      }
    } catch (TransportTimeoutException e) {
      if (transport.isOpen()) {
        throw new ProtocolViolationException("the transport is still open after: " + e.getMessage());
      }
      throw e;
    }
    return "flushed " + MAX_CHUNKS + " MiB that nobody read";
  }

  /** What FLUSH_TO_NON_READER writes each time: one array for every session, never changed. */
  private static final byte[] CHUNK = new byte[1 << 20];
  /** The most FLUSH_TO_NON_READER writes: far more than any socket's buffers hold. */
  private static final int MAX_CHUNKS = 256;

  private static String readBigReply(Transport transport) throws IOException {
    String header = transport.readLineStrict(32);
    if (!header.startsWith("$")) {
      throw new ProtocolViolationException("expected $<length> but got " + ProtocolViolationException.quote(header));
    }
    int n = Integer.parseInt(header.substring(1));
    byte[] body = transport.readBytes(n);
    for (int i = 0; i < n; i++) {
      if (body[i] != replyByte(i)) {
        throw new ProtocolViolationException("reply byte " + i + " is " + body[i] + ", expected " + replyByte(i));
      }
    }
    return "reply of " + n;
  }

  /** As FaultyPeer.replyByte, repeated here: this package is rewritten, the peer is not. */
  private static byte replyByte(int i) {
    return (byte) (i * 31 + (i >>> 8));
  }
}
