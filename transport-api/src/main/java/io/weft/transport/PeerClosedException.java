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

  public PeerClosedException(String message) {
    super(message);
  }

  public PeerClosedException(String message, Throwable cause) {
    super(message, cause);
  }
}
