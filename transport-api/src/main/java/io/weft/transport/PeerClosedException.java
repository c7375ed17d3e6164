package io.weft.transport;

import java.io.IOException;

/**
 * The peer closed the connection and this transport tried to send to it: a flush or write after
 * the peer has gone. A reader sees the same event as end of stream ({@code null} from
 * {@link Transport#readLine(int)}, an {@link java.io.EOFException} from the strict reads); a
 * writer gets this, at once, rather than a timeout. The transport is closed after it.
 */
public class PeerClosedException extends IOException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message the operation that found the peer gone
   */
  public PeerClosedException(String message) {
    super(message);
  }

  /**
   * Creates the exception with the I/O error that showed the peer gone.
   *
   * @param message the operation that found the peer gone
   * @param cause the error that showed the peer gone
   */
  public PeerClosedException(String message, Throwable cause) {
    super(message, cause);
  }
}
