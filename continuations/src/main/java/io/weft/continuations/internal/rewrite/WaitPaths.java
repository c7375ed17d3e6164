package io.weft.continuations.internal.rewrite;

import io.weft.continuations.internal.rewrite.Edge.Kind;
import java.util.HashMap;
import java.util.Map;

/**
 * Which methods with code can reach a wait, and by which first edge: a fixpoint over the
 * {@link CallGraph}, so that every chain down to a wait is finite. Calls through JDK dispatch are
 * left out here: which object a JDK call reaches is a question of what the task made, so the
 * {@link TaskWalk} judges them per task.
 */
final class WaitPaths {
  private final ClassIndex index;
  private final Waits waits;
  private final CallGraph graph;
  private final Map<MethodRef, Edge> waitsVia = new HashMap<>();

  WaitPaths(ClassIndex index, Waits waits, CallGraph graph) {
    this.index = index;
    this.waits = waits;
    this.graph = graph;
    fixpoint();
  }

  /** The first edge on {@code m}'s way to a wait, or null if it has none. */
  Edge via(MethodRef m) {
    return waitsVia.get(m);
  }

  /** Can {@code m} reach a wait, or is it one (a method reference or reflective target can be)? */
  boolean canWait(MethodRef m) {
    if (waitsVia.containsKey(m) || waits.isApiWait(m)) {
      return true;
    }
    ClassInfo c = index.info(m.owner());
    MethodInfo mi = c == null ? null : c.method(m);
    return mi != null && mi.annotated && c.rewritten && !c.inScope;
  }

  private void fixpoint() {
    boolean changed = true;
    while (changed) {
      changed = false;
      for (ClassInfo c : index.codeClasses()) {
        for (MethodInfo m : c.methods()) {
          if (waitsVia.containsKey(m.ref)) {
            continue;
          }
          for (Edge e : graph.edges(m)) {
            if (e.kind() == Kind.JDK_TYPE || e.kind() == Kind.JDK_CALLER) {
              continue;
            }
            if (e.kind() == Kind.WAIT || canWait(e.target())) {
              waitsVia.put(m.ref, e);
              changed = true;
              break;
            }
          }
        }
      }
    }
  }
}
