package io.weft.transport.spi;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * The one watcher of a connection's close (see {@link ReportsClose}) and whether the close has
 * happened: the watcher runs once, on the first of {@link #closed()} and its registration to
 * come second. One per connection; any thread.
 */
public final class CloseNotice {
  /** Stands for "closed" once the watcher, if any, has been taken to run. */
  private static final Runnable CLOSED = () -> { };
  private static final AtomicReferenceFieldUpdater<CloseNotice, Runnable> WATCHER =
      AtomicReferenceFieldUpdater.newUpdater(CloseNotice.class, Runnable.class, "watcher");

  private volatile Runnable watcher;

  /** A notice for a connection not yet closed. */
  public CloseNotice() {}

  /**
   * Registers the watcher, or runs it at once if the connection is already closed.
   *
   * @param closed what to run once the connection is closed
   * @return true if registered; false if it ran already
   * @throws IllegalStateException if a watcher was already registered
   */
  public boolean register(Runnable closed) {
    Objects.requireNonNull(closed, "closed");
    if (WATCHER.compareAndSet(this, null, closed)) {
      return true;
    }
    if (watcher == CLOSED) {
      closed.run();
      return false;
    }
    throw new IllegalStateException("this connection's close is already watched");
  }

  /** The connection is closed: runs the watcher, if one is registered and has not run. */
  public void closed() {
    Runnable w = watcher == CLOSED ? CLOSED : WATCHER.getAndSet(this, CLOSED);
    if (w != null && w != CLOSED) {
      w.run();
    }
  }

  /**
   * Whether a watcher is registered and {@link #closed()} has not been called.
   *
   * @return true while a registered watcher waits
   */
  public boolean isWatched() {
    Runnable w = watcher;
    return w != null && w != CLOSED;
  }

  /**
   * Whether {@link #closed()} has been called.
   *
   * @return true once the connection is closed
   */
  public boolean isClosed() {
    return watcher == CLOSED;
  }
}
