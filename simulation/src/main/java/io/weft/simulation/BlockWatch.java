package io.weft.simulation;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Catches, at run time, a session that blocks the simulation's one thread (a JDK lock, {@code
 * Object.wait}, a blocking queue, {@code Thread.sleep}): nothing else could ever wake it, and
 * virtual time would not move. A daemon thread that runs no session code samples the simulation
 * thread every {@value #SAMPLE_MILLIS} ms; when the same slice is found blocked twice in a row,
 * it records the thread's stack and interrupts it, and the run then fails naming the session, the
 * chain and the seed. A wait that does not answer an interrupt ({@code synchronized},
 * {@code Lock.lock}) cannot be ended this way: the stack is then written to standard error, with
 * the seed, since the run can never return.
 */
final class BlockWatch implements AutoCloseable {
  static final long SAMPLE_MILLIS = 100;

  private final World world;
  private final Thread simulation;
  private final Thread watcher;
  private volatile boolean stopped;

  BlockWatch(World world) {
    this.world = world;
    this.simulation = Thread.currentThread();
    this.watcher = new Thread(this::watch, "weft-simulation-block-watch");
    watcher.setDaemon(true);
    watcher.start();
  }

  private void watch() {
    long seenSlice = -1L;
    StackTraceElement seenTop = null;
    while (!stopped) {
      LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(SAMPLE_MILLIS));
      if (stopped) {
        return;
      }
      long slice = world.slice();
      Thread.State state = simulation.getState();
      boolean blocked = slice >= 0 && (state == Thread.State.BLOCKED || state == Thread.State.WAITING
          || state == Thread.State.TIMED_WAITING);
      if (!blocked) {
        seenSlice = -1L;
        continue;
      }
      StackTraceElement[] stack = simulation.getStackTrace();
      StackTraceElement top = stack.length == 0 ? null : stack[0];
      if (slice == seenSlice && top != null && top.equals(seenTop) && world.slice() == slice) {
        BlockedSessionError error = new BlockedSessionError(world.runningIndex(), world.seed, state, stack);
        if (world.blocked(error)) {
          simulation.interrupt();
          if (state == Thread.State.BLOCKED) {
            System.err.println(error.getMessage());
          }
        }
        seenSlice = -1L;
        continue;
      }
      seenSlice = slice;
      seenTop = top;
    }
  }

  @Override
  public void close() {
    stopped = true;
    LockSupport.unpark(watcher);
  }
}
