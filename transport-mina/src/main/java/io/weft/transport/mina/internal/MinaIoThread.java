package io.weft.transport.mina.internal;

import io.weft.continuations.spi.EventLoopThread;

/**
 * A thread of a Weft MINA connector (its I/O processors, its connect or pipe thread), made by the
 * connector's own thread factory so that {@link IoThreads} knows it by its class, never by its
 * name. Keeps, in plain fields that only this thread touches, what would otherwise be a
 * thread-local per callback: whether a Weft callback is running, and for which processor it
 * delivers input.
 */
public final class MinaIoThread extends EventLoopThread {
  /** Depth of Weft's MINA callbacks running on this thread (they nest on the in-VM pipe). */
  int callbacks;
  /**
   * The processor whose session's input this thread is delivering now, or null: that processor
   * flushes after delivering input in the same turn of its loop (see NioProcessor.wakeup).
   */
  Object receivingFor;
  /** True while a session on this thread hands a write to MINA (see NioProcessor.wakeup). */
  boolean writing;

  public MinaIoThread(Runnable task, String name) {
    super(task, name);
  }
}
