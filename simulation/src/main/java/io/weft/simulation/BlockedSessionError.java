package io.weft.simulation;

/**
 * A session blocked the simulation's thread: the run cannot go on deterministically, and fails
 * with this error, which names the session, what it blocked in (its stack is this error's) and the
 * seed that replays it. Fix the session to wait through its transport, or through
 * {@link SimulatedTime#sleep}, or a {@code SessionLock}, never through a JDK lock, monitor wait or
 * blocking queue.
 */
public final class BlockedSessionError extends Error {
  private static final long serialVersionUID = 1L;

  /** The seed of the run that blocked; serialized with the error. */
  private final long seed;
  /** The index of the session that blocked the thread; serialized with the error. */
  private final int session;

  BlockedSessionError(int session, long seed, Thread.State state, StackTraceElement[] stack) {
    super("session " + session + " blocked the simulation's thread (" + state + ") in " + describe(stack)
        + "; nothing in the simulation can wake it (seed " + seed + ")");
    this.seed = seed;
    this.session = session;
    setStackTrace(stack);
  }

  private static String describe(StackTraceElement[] stack) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < Math.min(stack.length, 6); i++) {
      b.append(i == 0 ? "" : " <- ").append(stack[i]);
    }
    return b.toString();
  }

  /**
   * The seed of the run.
   *
   * @return the seed
   */
  public long seed() {
    return seed;
  }

  /**
   * The session that blocked.
   *
   * @return its index
   */
  public int session() {
    return session;
  }
}
