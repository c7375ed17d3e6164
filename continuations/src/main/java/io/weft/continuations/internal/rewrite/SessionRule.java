package io.weft.continuations.internal.rewrite;

/**
 * A load-time check on the code a session task can reach: the extension point for problems that
 * refuse a task before any session runs. The {@link TaskWalk} goes from each task's {@code run}
 * over every call edge it can resolve (into classes outside the rewritten packages too) and asks
 * each rule about every method it reaches, once per task, and about every edge it follows out of
 * it. A rule reports through the {@link Reach}: {@link Reach#problem} refuses the task (in every
 * way of rewriting: the loader, the agent, the {@code Rewrite} tool) with the chain from the task
 * to the fault; {@link Reach#warning} only informs.
 *
 * <p>What no task can reach is never asked about. The built-in rules ({@link SuspendPathRules})
 * refuse the calls that cannot suspend on a suspend path; further rules come in through
 * {@link RewriteRules}. A rule must be stateless or keep its state per walk: one instance serves
 * every task of every analysis.
 */
public interface SessionRule {
  /** Asked once for each method a task can reach, before its edges. */
  void reached(Reach at);

  /**
   * Asked for each edge the walk follows out of {@code at}: every edge, except a virtual call's
   * edge to an override in a class the task never makes.
   */
  default void edge(Reach at, Edge edge) {}
}
