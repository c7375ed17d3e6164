package io.weft.continuations.internal.rewrite;

/**
 * One edge of the call graph out of a method: the call at {@code line} to {@code target} (for a
 * wait, the waiting method itself), and whether the rewrite can make it suspend. {@code via}
 * names the type the call goes through when that is what cannot be rewritten; {@code monitorLine}
 * is the line of the enclosing {@code synchronized} block, or 0; {@code dispatch} is true for an
 * edge to an override that a virtual call may reach, which only objects the task makes can;
 * {@code note} says why a {@link Kind#LAMBDA} edge cannot be rewritten, or is null.
 */
public record Edge(int line, MethodRef target, Kind kind, String via, int monitorLine, boolean dispatch,
    String note) {
  Edge(int line, MethodRef target, Kind kind, String via, int monitorLine) {
    this(line, target, kind, via, monitorLine, false, null);
  }

  Edge(int line, MethodRef target, Kind kind, String via, int monitorLine, boolean dispatch) {
    this(line, target, kind, via, monitorLine, dispatch, null);
  }

  /** How a call is made, as far as suspending through it goes. */
  public enum Kind {
    /** A call the rewrite can make suspendable. */
    OK,
    /** The wait itself. */
    WAIT,
    /** A constructor: never suspendable. */
    CONSTRUCTOR,
    /** A call through a JDK type, which may reach a user's override. */
    JDK_TYPE,
    /** An object handed to JDK code, which may call its overrides of JDK methods. */
    JDK_CALLER,
    /**
     * A lambda or method reference whose class, made by the JDK and never rewritten, cannot pass a
     * suspend through (see {@link LambdaProxies}); one that can is an {@link #OK} edge.
     */
    LAMBDA,
    /** {@code Method.invoke} of a constant lookup. */
    REFLECTION,
    /** {@code MethodHandle.invoke*} of a constant lookup. */
    HANDLE,
    /** A method of a class outside the rewritten packages. */
    OUTSIDE,
    /** A call through a type outside the rewritten packages. */
    OUTSIDE_TYPE,
    /** A method marked {@code @continuable} whose class was not rewritten. */
    NOT_REWRITTEN;

    public boolean rewritable() {
      return this == OK || this == WAIT;
    }
  }
}
