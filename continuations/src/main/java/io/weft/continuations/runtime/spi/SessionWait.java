package io.weft.continuations.runtime.spi;

/**
 * One wait of a session of a {@link DrivenScheduler}, as its caller's timer sees it: armed with a
 * timeout through {@link WaitTimeouts#arm}, it is either woken first (by its transport or a
 * cancellation) or timed out by {@link #timeOut()}. Of the endings the first wins; the others
 * are ignored.
 */
public interface SessionWait {
  /**
   * The index of the session that waits, as given to {@link DrivenScheduler#session}.
   *
   * @return the session's index
   */
  int session();

  /**
   * True while the wait is armed and has not ended.
   *
   * @return true until it is woken, timed out or cancelled
   */
  boolean isPending();

  /**
   * Ends the wait as timed out, unless it has ended already: its session becomes ready and
   * finds its operation timed out. Only on the thread that drives the scheduler.
   */
  void timeOut();
}
