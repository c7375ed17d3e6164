package io.weft.transport;

import java.net.SocketTimeoutException;

/**
 * An operation waited longer than its {@link Timeout} allowed. The transport that threw it has
 * been closed and is no longer usable.
 */
public class TransportTimeoutException extends SocketTimeoutException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message the operation, the limit that ran out and what was read so far
   */
  public TransportTimeoutException(String message) {
    super(message);
  }
}
