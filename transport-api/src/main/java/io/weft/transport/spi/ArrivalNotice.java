package io.weft.transport.spi;

import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * The one watcher of a connection's first arrival (see {@link ReportsArrival}), for a transport to
 * keep. {@link #arrived()} is called by whichever thread takes bytes off the socket, outside any
 * lock of the transport's; after the first arrival each call is one volatile read. Allocates
 * nothing.
 */
public final class ArrivalNotice {
  /** Stands for "arrived": no watcher can be set after it, and one set before it has run. */
  private static final Runnable ARRIVED = new Runnable() {
    @Override
    public void run() {
      // A marker, never a watcher.
    }
  };
  private static final AtomicReferenceFieldUpdater<ArrivalNotice, Runnable> WATCHER =
      AtomicReferenceFieldUpdater.newUpdater(ArrivalNotice.class, Runnable.class, "watcher");

  /** Null, the watcher waiting for the first arrival, or {@link #ARRIVED}. */
  private volatile Runnable watcher;

  /** A notice with no watcher, before any arrival. */
  public ArrivalNotice() {}

  /** Bytes arrived: runs the watcher, the first time. */
  public void arrived() {
    Runnable w = take();
    if (w != null) {
      w.run();
    }
  }

  /**
   * Bytes arrived: the watcher, the first time, for the caller to run once it is done with the
   * input (outside its own error handling: the watcher may run another session's code); null
   * after that, or with no watcher.
   *
   * @return the watcher to run now, or null
   */
  public Runnable take() {
    if (watcher == ARRIVED) {
      return null;
    }
    Runnable w = WATCHER.getAndSet(this, ARRIVED);
    return w != null && w != ARRIVED ? w : null;
  }

  /**
   * As {@link ReportsArrival#whenHeardFrom}: runs {@code heard} at the first arrival, or now if it
   * has been.
   *
   * @param heard what to run, once
   * @throws IllegalStateException if a watcher was already registered
   */
  public void whenHeardFrom(Runnable heard) {
    if (heard == null) {
      throw new NullPointerException("heard");
    }
    if (WATCHER.compareAndSet(this, null, heard)) {
      return;
    }
    if (watcher == ARRIVED) {
      heard.run();
      return;
    }
    throw new IllegalStateException("a watcher of the first arrival is already registered");
  }
}
