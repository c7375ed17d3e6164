package io.weft.continuations;

/**
 * A run that Weft ended before its sessions did, because the heap ran out: thrown by
 * {@link SessionRunner#run} once every session has ended (those under way cancelled, with a
 * {@link io.weft.continuations.spi.SessionCancelledException} or as {@code CANCELLED}). The
 * message says why; {@link #result()} holds what the sessions did up to then.
 */
public final class RunAbortedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The outcomes when the run ended; not serialized. */
  private final transient RunResult<?> result;

  RunAbortedException(String reason, RunResult<?> result) {
    super("the run was aborted: " + reason + "; the sessions under way were cancelled");
    this.result = result;
  }

  /**
   * The outcome of every session, as far as each got.
   *
   * @return the run's result
   */
  public RunResult<?> result() {
    return result;
  }
}
