package io.weft.continuations.spi;

import java.io.InterruptedIOException;

/**
 * Thrown by a wait of a session whose run was cancelled (the runner's {@code cancel()} or
 * {@code close()}). The session's outcome is then {@code CANCELLED}. Waiting again after
 * catching it throws it again. It is no failure of the transport whose wait it ended: the
 * transport's reads and flushes pass it on without closing the transport (a failure would close
 * it inside the read, before the session's stack unwinds, as {@code "failed: ..."}); the
 * session's own close, or the canceller's, closes it ({@code "closed by its owner"}).
 */
public final class SessionCancelledException extends InterruptedIOException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception with the reason the session was cancelled, as its message.
   *
   * @param message why the session was cancelled
   */
  public SessionCancelledException(String message) {
    super(message);
  }
}
