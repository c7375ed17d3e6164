package io.weft.transport.spi;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;
import java.io.EOFException;
import java.io.IOException;

/**
 * Which failed operations close a transport, the same on every transport: a timeout or an I/O
 * failure leaves it unusable and closes it; an end of stream, a protocol violation or its own
 * close does not (the first two leave whatever is buffered readable).
 */
public final class FailurePolicy {
  private FailurePolicy() {}

  /**
   * Why a transport closes after an operation failed with {@code e}, for its closed message; or
   * null when {@code e} leaves it open.
   *
   * @param e what the operation failed with
   * @return the reason to close with, or null to leave the transport open
   */
  public static String closeReason(IOException e) {
    if (e instanceof TransportTimeoutException) {
      return "an operation timed out: " + e.getMessage();
    }
    if (e instanceof TransportClosedException || e instanceof EOFException
        || e instanceof ProtocolViolationException) {
      return null;
    }
    return "failed: " + e;
  }
}
