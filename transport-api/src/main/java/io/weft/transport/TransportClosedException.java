package io.weft.transport;

import java.io.IOException;

/**
 * An operation was attempted on a {@link Transport} that had already been closed, by its
 * owner, by a timeout, or after an earlier failure. The message says which.
 */
public class TransportClosedException extends IOException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message why the transport is closed
   */
  public TransportClosedException(String message) {
    super(message);
  }

  /**
   * Creates the exception with what closed the transport.
   *
   * @param message why the transport is closed
   * @param cause the failure or timeout that closed the transport
   */
  public TransportClosedException(String message, Throwable cause) {
    super(message, cause);
  }
}
