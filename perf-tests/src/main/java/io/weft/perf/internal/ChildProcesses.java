package io.weft.perf.internal;

import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.TimeUnit;

/** How a benchmark ends a child JVM it drives over the child's standard input. */
public final class ChildProcesses {
  /** How long a child asked to quit may take to exit before it is destroyed. */
  public static final long QUIT_WAIT_SECONDS = 30;

  private ChildProcesses() {}

  /**
   * Asks {@code process} to quit by writing {@code quitLine} and a newline to {@code toChild} and
   * closing it (the child also quits at the end of its input), waits up to
   * {@value #QUIT_WAIT_SECONDS} s for it to exit, and destroys it if it has not, or if this thread
   * is interrupted while waiting (whose interrupt status is then set again). A child that has
   * ended already is left as it is.
   */
  public static void stop(Process process, Writer toChild, String quitLine) {
    try (toChild) {
      toChild.write(quitLine + "\n");
      toChild.flush();
    } catch (IOException e) {
      // It has ended already: nothing to ask.
    }
    try {
      if (!process.waitFor(QUIT_WAIT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
