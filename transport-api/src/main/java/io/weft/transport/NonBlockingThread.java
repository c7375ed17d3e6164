package io.weft.transport;

/**
 * Implemented by threads that must never block: a transport's I/O threads, made by the
 * transport's own thread factory. Blocking code (a {@code SocketTransport}, a blocking connector)
 * asks the current thread for this type and throws {@link BlockingOperationException} instead of
 * blocking it. A marker: it has no abstract methods.
 */
public interface NonBlockingThread {

  /**
   * Throws if the current thread must never block.
   *
   * @param what the operation that would block, for the message ("a read")
   * @throws BlockingOperationException naming the thread and {@code what} would have blocked
   */
  static void checkMayBlock(String what) {
    Thread t = Thread.currentThread();
    if (t instanceof NonBlockingThread) {
      throw new BlockingOperationException("refusing to block I/O thread " + t.getName() + " for "
          + what + ": every connection it serves would stall. Use a suspending connector, or run"
          + " the session on worker threads (Mode.continuations(k).resumeOnWorkers()).");
    }
  }
}
