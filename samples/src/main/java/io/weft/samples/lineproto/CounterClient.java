package io.weft.samples.lineproto;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * A client for a made-up line protocol, written the way any Weft protocol is: plain blocking
 * calls on a {@link Transport}, no annotations, nothing mode-specific.
 *
 * <pre>
 * C: ADD 5          S: OK 12            (the new total)
 * C: ADD -1         S: ERR negative amount: -1
 * C: QUIT           S: BYE
 * </pre>
 */
public final class CounterClient {
  /** No reply of this protocol is longer; a longer line is refused, not buffered. */
  private static final int MAX_LINE = 256;
  private final Transport transport;

  /** A client over an open transport, which stays the caller's to close. */
  public CounterClient(Transport transport) {
    this.transport = transport;
  }

  /**
   * Adds {@code amount} and returns the server's new total.
   *
   * @throws CounterRefusedException if the server answers {@code ERR}
   * @throws ProtocolViolationException if it answers anything else but {@code OK <number>}
   * @throws java.io.EOFException if it hangs up first
   */
  public long add(long amount) throws IOException {
    String reply = call("ADD " + amount);
    try {
      return Long.parseLong(reply.substring("OK ".length()));
    } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
      throw new ProtocolViolationException("bad total: " + ProtocolViolationException.quote(reply), e);
    }
  }

  /** Says goodbye; the server closes the connection after {@code BYE}. */
  public void quit() throws IOException {
    transport.writeLine("QUIT");
    transport.flush();
    String reply = transport.readLineStrict(MAX_LINE);
    if (!reply.equals("BYE")) {
      throw new ProtocolViolationException("expected BYE, got " + ProtocolViolationException.quote(reply));
    }
  }

  private String call(String request) throws IOException {
    transport.writeLine(request);
    transport.flush();
    String reply = transport.readLineStrict(MAX_LINE);   // suspends here in continuation mode
    if (reply.startsWith("ERR ")) {
      throw new CounterRefusedException(reply.substring("ERR ".length()));
    }
    if (!reply.startsWith("OK ")) {
      throw new ProtocolViolationException("expected OK or ERR, got " + ProtocolViolationException.quote(reply));
    }
    return reply;
  }
}
