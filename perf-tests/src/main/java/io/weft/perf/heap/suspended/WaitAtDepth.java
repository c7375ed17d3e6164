package io.weft.perf.heap.suspended;

import io.weft.continuations.spi.Suspend;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.transport.spi.Deadlines;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * A session that waits {@code depth} frames down (below {@code run}) without touching its
 * transport: at the bottom it calls {@link Suspend#await} with a registration that hands the
 * wake-up to {@code wakeUps}. In CONTINUATIONS mode the session suspends there; in the thread
 * modes its thread blocks there. Constructor arguments are JDK types, so the runner's
 * instrumenting class loader can make one. Returns the sum of its frames' depths.
 */
public final class WaitAtDepth implements SessionTask<Long> {
  private final int depth;
  private final Consumer<Runnable> wakeUps;

  /** {@code wakeUps} gets each session's wake-up; running it lets that session end. */
  public WaitAtDepth(int depth, Consumer<Runnable> wakeUps) {
    if (depth < 1) {
      throw new IllegalArgumentException("depth < 1: " + depth);
    }
    this.depth = depth;
    this.wakeUps = wakeUps;
  }

  @Override
  public Long run(Transport transport, int index) throws IOException {
    return waitAt(depth);
  }

  /** Each frame holds a little state, as real frames do. */
  private long waitAt(int frames) throws IOException {
    if (frames > 1) {
      long below = waitAt(frames - 1);
      return below + frames;
    }
    while (!Suspend.await(wakeUps::accept, Deadlines.FOREVER)) {
      // FOREVER never times out; a spurious false would only re-wait.
    }
    return 1L;
  }
}
