package io.weft.transport;

/**
 * A call would have blocked a thread that must never block: an I/O thread of a transport (a MINA
 * I/O processor, say), on which every session it serves depends. Thrown at once, before
 * anything waits, instead of the deadlock or stall that blocking there would cause. The thread is
 * recognised by what made it (the transport's own thread factory), never by its name.
 *
 * <p>Typical cause: a session that runs on an I/O thread (continuation mode resumes sessions
 * where their bytes arrive) opens a blocking transport. Use a suspending connector there, or run
 * the sessions on worker threads.
 */
public class BlockingOperationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes one.
   *
   * @param message what would have blocked, and on which thread
   */
  public BlockingOperationException(String message) {
    super(message);
  }
}
