package io.weft.protocols.redis;

import java.io.IOException;

/**
 * Redis answered with an error reply ({@code -ERR unknown command ...}). The connection is
 * still usable: the error is the reply. {@link #getMessage()} is the server's text as sent.
 *
 * <p>Inside an array reply, or among the replies of a pipeline, an error is not thrown but
 * returned in place as an instance of this class, so that one failed command does not hide the
 * others' replies.
 */
public class RedisErrorException extends IOException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception from an error reply.
   *
   * @param serverMessage the error reply's text, after the {@code -}
   */
  public RedisErrorException(String serverMessage) {
    super(serverMessage);
  }

  /**
   * The error's first word, by Redis convention its kind: {@code ERR}, {@code WRONGTYPE}.
   *
   * @return the error's first word, such as {@code ERR}
   */
  public String errorCode() {
    String message = getMessage();
    int space = message.indexOf(' ');
    return space < 0 ? message : message.substring(0, space);
  }
}
