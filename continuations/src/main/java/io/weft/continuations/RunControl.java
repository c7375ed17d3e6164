package io.weft.continuations;

/**
 * The cancellation of one run, between {@link SessionRunner#cancel()} (any thread) and the mode's
 * runner, which registers what cancelling means for it once it has something to cancel. A
 * cancel before that registration runs the action as soon as it is registered; the action may
 * run more than once, so it must be idempotent. An abort is a cancel with a reason, which the
 * run then throws.
 */
final class RunControl {
  private volatile boolean cancelled;
  private volatile Runnable onCancel;
  private volatile String abortedBecause;

  /** Cancels the run for {@code reason}, which {@link #abortedBecause()} then gives; the first reason stays. */
  void abort(String reason) {
    if (abortedBecause == null) {
      abortedBecause = reason;
    }
    cancel();
  }

  /** Why the run was aborted, or null. */
  String abortedBecause() {
    return abortedBecause;
  }

  boolean isCancelled() {
    return cancelled;
  }

  /** What {@link #cancel()} does from now on; runs it at once if the run was cancelled already. */
  void onCancel(Runnable action) {
    onCancel = action;
    if (cancelled) {
      action.run();
    }
  }

  void cancel() {
    cancelled = true;
    Runnable action = onCancel;
    if (action != null) {
      action.run();
    }
  }
}
