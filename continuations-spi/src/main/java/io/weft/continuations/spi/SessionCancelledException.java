package io.weft.continuations.spi;

import java.io.InterruptedIOException;

/**
 * Thrown by a wait of a session whose run was cancelled (the runner's {@code cancel()} or
 * {@code close()}). The session's outcome is then {@code CANCELLED}. Waiting again after
 * catching it throws it again.
 */
public final class SessionCancelledException extends InterruptedIOException {
  private static final long serialVersionUID = 1L;

  public SessionCancelledException(String message) {
    super(message);
  }
}
