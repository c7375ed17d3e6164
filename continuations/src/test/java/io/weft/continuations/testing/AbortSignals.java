package io.weft.continuations.testing;

import java.util.concurrent.CountDownLatch;

/**
 * What a test shares with its task classes that run as continuations: those are loaded by the
 * continuation class loader, with statics of their own, and this class by its parent.
 */
public final class AbortSignals {
  /** Counted down by each reading session. */
  public static volatile CountDownLatch reading;

  private AbortSignals() {}
}
