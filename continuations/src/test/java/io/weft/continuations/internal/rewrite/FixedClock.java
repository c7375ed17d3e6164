package io.weft.continuations.internal.rewrite;

import org.apache.commons.javaflow.api.continuable;

/** Redirect targets for the tests: in a Weft package, so loaded from the parent as the runtime is. */
public final class FixedClock {
  private FixedClock() {}

  public static long nanoTime() {
    return 42L;
  }

  /** Marked as a suspending operation is: the analysis must treat a call to it as a wait. */
  @continuable
  public static void sleep(long millis) {}
}
