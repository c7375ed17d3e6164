package io.weft.continuations.testing;

/**
 * An inheritable thread-local that the thread starting a run sets: in a package the tests never
 * rewrite, so the suite and every route's task classes share it.
 */
public final class RunContext {
  /** What the suite sets on its own thread before it starts a run. */
  public static final String VALUE = "from the run's thread";
  public static final InheritableThreadLocal<String> INHERITED = new InheritableThreadLocal<>();

  private RunContext() {}
}
