package io.weft.continuations.internal.rewrite;

import java.util.List;

/**
 * A method a task's walk has reached, as a {@link SessionRule} sees it: what it is and calls,
 * whether it can reach a wait, and the chain the walk took to it. Reports go to the walk.
 * Valid only during the rule's call.
 */
public final class Reach {
  private final TaskWalk.Run run;
  final MethodInfo method;
  private final ClassInfo owner;

  Reach(TaskWalk.Run run, MethodInfo method, ClassInfo owner) {
    this.run = run;
    this.method = method;
    this.owner = owner;
  }

  public MethodRef method() {
    return method.ref;
  }

  /** The method's access flags ({@code Opcodes.ACC_*}). */
  public int access() {
    return method.access;
  }

  /** True if its class is under the rewritten packages (so its code is rewritten). */
  public boolean rewritten() {
    return owner.inScope;
  }

  /**
   * True if its class carries Weft's {@code Rewritten} mark (the {@code Rewrite} tool's output):
   * it is defined as it is, so the call-site redirects, though {@link #calls()} shows them, are
   * not applied to its code.
   */
  public boolean rewrittenBefore() {
    return owner.marked;
  }

  /** Its call instructions, as they will run (after the call-site redirects). */
  public List<CallSite> calls() {
    return method.calls;
  }

  /** Its edges in the call graph (every one, including those the walk does not follow). */
  public List<Edge> edges() {
    return run.edges(method);
  }

  /** True if it can reach a wait through edges the rewrite can follow, or is a wait. */
  public boolean canWait() {
    return run.canWait(method.ref);
  }

  /** True if a call along {@code e} can reach a wait. */
  public boolean waits(Edge e) {
    return e.kind() == Edge.Kind.WAIT || run.canWait(e.target());
  }

  /** The first edge on its way to a wait, or null. */
  public Edge firstWait() {
    return run.via(method.ref);
  }

  /**
   * The chain {@code Task.run (line 9) → Client.retr (line 20) → Transport.readLine}: the walk's
   * path to this method, then {@code last} (null: the method's own way to a wait), then down to
   * the wait.
   */
  public String chainToWait(Edge last) {
    return run.chain(method.ref, last);
  }

  /**
   * The walk's path to this method, then the call {@code call} in it: {@code Task.run (line 9) →
   * Client.open (line 31) → Thread.start}. For a rule about a call that is not a wait.
   */
  public String chainTo(CallSite call) {
    return run.chainTo(method.ref, call);
  }

  /**
   * Refuses the task: {@code at} (this method, or the one the fault is in) {@code what}, then the
   * chain, then how to fix it. One problem per method per task: later ones for the same method
   * are dropped.
   */
  public void problem(MethodRef at, String what, String chain, String fix) {
    run.problem(at, what + ": " + chain + ". " + fix);
  }

  /** Informs whoever reads the report; does not refuse anything. */
  public void warning(String text) {
    run.warning(text);
  }
}
