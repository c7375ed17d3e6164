package io.weft.continuations.runtime.spi;

/**
 * One session of a {@link DrivenScheduler}: a task run as a continuation, one slice at a time, on
 * the thread that drives the scheduler.
 *
 * <p>Lifecycle: made by {@link DrivenScheduler#session}; ready once
 * {@linkplain DrivenScheduler#start started}; each {@linkplain DrivenScheduler#runSlice slice} runs
 * it until it suspends on a wait (it is ready again when the wait ends) or
 * {@linkplain #isFinished() finishes}, with a value, a failure, or cancelled.
 */
public interface DrivenSession {
  /**
   * The session's index, as given when it was made.
   *
   * @return the index
   */
  int index();

  /**
   * True once the session has ended, whichever way.
   *
   * @return true if it has finished
   */
  boolean isFinished();

  /**
   * True if the session was cancelled.
   *
   * @return true after {@link #cancel()}
   */
  boolean isCancelled();

  /**
   * What the task returned; null until it has finished without a failure.
   *
   * @return the task's value, or null
   */
  Object value();

  /**
   * What ended the session if not a value: the task's exception, a refusal of the runtime, or a
   * cancellation.
   *
   * @return the failure, or null
   */
  Throwable failure();

  /**
   * Cancels the session: the wait it is in ends and the session becomes ready, to end with a
   * cancellation at that wait; a session that has not started ends as it starts. Only on the
   * thread that drives the scheduler.
   */
  void cancel();

  /**
   * Shrinks what the suspended session's captured stack takes to what its frames hold (the engine
   * doubles its arrays as a suspend fills them). For a caller whose many sessions spend most of
   * their life waiting; does nothing to a session that is not suspended. Only on the thread that
   * drives the scheduler, between slices.
   */
  void trimCapturedStack();
}
