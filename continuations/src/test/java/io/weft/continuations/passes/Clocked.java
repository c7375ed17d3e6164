package io.weft.continuations.passes;

/** Reads the clock and sleeps: call sites for the redirect pass to take. */
public final class Clocked {
  private Clocked() {}

  public static long now() {
    return System.nanoTime();
  }

  public static void nap() throws InterruptedException {
    Thread.sleep(1);
  }
}
