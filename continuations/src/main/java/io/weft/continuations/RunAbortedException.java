package io.weft.continuations;

/**
 * A run that Weft ended before its sessions did, because the heap ran out: thrown by
 * {@link SessionRunner#run} once every session has ended (those under way cancelled, with a
 * {@link io.weft.continuations.spi.SessionCancelledException} or as {@code CANCELLED}), or once
 * the runner's close wait has passed since the abort, whichever comes first: a session whose
 * thread met the heap's end again in its own failure handling may never say that it ended, and
 * an aborted run does not wait for it for ever. The message says why, and how many sessions
 * were left behind, if any; {@link #result()} holds what the sessions did up to then (one left
 * behind that had started and had no outcome yet is {@code CANCELLED} with a
 * {@link io.weft.continuations.spi.SessionCancelledException} of its own whose message begins
 * "left behind: "; its thread or fiber is abandoned, and the outcomes do not change after the run
 * returned). Once {@code run()} has returned the run's cancels go no further: a canceller finishes
 * at most the session it is at (a close under way then, one that never returns say, stays its own,
 * past the run).
 */
public final class RunAbortedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The outcomes when the run ended; not serialized. Set once more by {@link #because}. */
  private transient volatile RunResult<?> result;
  /** Why, for the message of one made ahead (see {@link #madeAhead}); null otherwise. */
  private volatile String reasonLater;
  /** For the message of one made ahead: as {@link #message}'s {@code unended}. */
  private volatile int unendedLater;
  /** For the message of one made ahead: the runner's close wait. */
  private volatile long graceLater;

  RunAbortedException(String reason, int unended, long graceMillis, RunResult<?> result) {
    super(message(reason, unended, graceMillis));
    this.result = result;
  }

  private RunAbortedException() {
    // No stack trace and no suppression: nothing to make when it is thrown with the heap full.
    super(null, null, false, false);
    this.result = null;
  }

  /**
   * One made while there is room, with no stack trace, to be thrown by a run's thread that has
   * none left to make its own: what it says is given by {@link #because}, its message made when
   * asked for (by then the sessions have given their heap back, or the asker meets the error
   * itself).
   */
  static RunAbortedException madeAhead() {
    return new RunAbortedException();
  }

  /**
   * Sets what one {@link #madeAhead} says, as the constructor's arguments do (the outcomes, when
   * the run had gathered them before it found no room to say so); allocates nothing.
   */
  RunAbortedException because(String reason, int unended, long graceMillis, RunResult<?> outcomes) {
    unendedLater = unended;
    graceLater = graceMillis;
    result = outcomes;
    reasonLater = reason;
    return this;
  }

  @Override
  public String getMessage() {
    String made = super.getMessage();
    return made != null ? made : message(reasonLater, unendedLater, graceLater);
  }

  private static String message(String reason, int unended, long graceMillis) {
    return "the run was aborted: " + reason + "; the sessions under way were cancelled"
        + (unended == 0 ? "" : unended < 0
            ? ", and the run's own thread met the heap's end too, before it could gather their outcomes"
            : ", and " + unended + " of them had not ended " + graceMillis
                + " ms later (the runner's close wait): they were left behind");
  }

  /**
   * The outcome of every session, as far as each got; null when the run's own thread met the
   * heap's end too, before it could gather them (the message says so).
   *
   * @return the run's result, or null
   */
  public RunResult<?> result() {
    return result;
  }
}
