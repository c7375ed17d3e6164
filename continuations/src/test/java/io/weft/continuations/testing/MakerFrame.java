package io.weft.continuations.testing;

/**
 * Runs what it is given. {@code FirstCancellersRun} defines a copy of it in a class loader of its
 * own, so that the code making the JVM's first run has a frame of that loader on its stack, as a
 * web application's or a plug-in's would.
 */
public final class MakerFrame implements Runnable {
  private final Runnable then;

  public MakerFrame(Runnable then) {
    this.then = then;
  }

  @Override
  public void run() {
    then.run();
  }
}
