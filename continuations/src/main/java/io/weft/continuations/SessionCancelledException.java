package io.weft.continuations;

import java.io.InterruptedIOException;

/**
 * Thrown by a wait of a session whose run was cancelled ({@link SessionRunner#cancel()}). The
 * session's outcome is then {@link Outcome.Status#CANCELLED}. Waiting again after catching it
 * throws it again.
 */
public final class SessionCancelledException extends InterruptedIOException {
  private static final long serialVersionUID = 1L;

  public SessionCancelledException(String message) {
    super(message);
  }
}
