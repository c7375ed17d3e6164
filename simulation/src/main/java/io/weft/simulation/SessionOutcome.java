package io.weft.simulation;

import io.weft.continuations.Outcome;

/**
 * How one client session of a simulation ended.
 *
 * @param <T> what the session's task returns
 * @param index the session's index, from 0
 * @param status succeeded, failed or cancelled
 * @param value what the task returned; null unless it succeeded
 * @param failure what ended it; null if it succeeded
 */
public record SessionOutcome<T>(int index, Outcome.Status status, T value, Throwable failure) {
  /**
   * Whether the session succeeded.
   *
   * @return true if the task returned normally
   */
  public boolean succeeded() {
    return status == Outcome.Status.SUCCEEDED;
  }
}
