package io.weft.perf.micro.session;

import io.weft.continuations.spi.Suspend;
import io.weft.perf.micro.ContinuationPingPong;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.transport.spi.Deadlines;
import java.io.IOException;

/**
 * The two sessions of {@code ContinuationSuspendBenchmark}: session 0 is ping, session 1 pong.
 * Each waits for its turn {@code depth} frames down, through {@link Suspend#await}; the runner
 * loads this class through its continuation class loader, which rewrites every method here.
 */
public final class PingPongTask implements SessionTask<String>, Turns {
  private final ContinuationPingPong pair;
  private final int depth;
  private final long waitNanos;
  private final boolean synchronizedWait;
  private final boolean threadLocal;
  private final boolean throughInterface;
  private final Turns turns = this;
  private static final ThreadLocal<Integer> WHO = new ThreadLocal<>();
  /** One monitor per session, so a synchronized wait never meets the other session's. */
  private final Object[] monitors = {new Object(), new Object(), new Object()};

  /**
   * @param waitNanos each wait's timeout, {@link Deadlines#FOREVER} for none; a wait that times
   *     out is counted and waited again
   * @param synchronizedWait true to wait inside a {@code synchronized} block on the session's own
   *     monitor (a session monitor once rewritten, never contended)
   * @param threadLocal true to set a thread-local before each wait and check it after
   * @param throughInterface true for each frame to call the next through {@link Turns}
   */
  public PingPongTask(ContinuationPingPong pair, Integer depth, Long waitNanos, Boolean synchronizedWait,
      Boolean threadLocal, Boolean throughInterface) {
    this.pair = pair;
    this.depth = depth;
    this.waitNanos = waitNanos;
    this.synchronizedWait = synchronizedWait;
    this.threadLocal = threadLocal;
    this.throughInterface = throughInterface;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    if (index == 0) {
      ping();
    } else {
      pong();
    }
    return "stopped";
  }

  private void ping() throws IOException {
    while (awaitTurn(depth, ContinuationPingPong.PING)) {
      int n = pair.rounds();
      for (int i = 0; i < n; i++) {
        pair.pass(ContinuationPingPong.PONG);
        if (!awaitTurn(depth, ContinuationPingPong.PING)) {
          return;
        }
      }
      pair.batchDone();
    }
  }

  private void pong() throws IOException {
    while (awaitTurn(depth, ContinuationPingPong.PONG)) {
      pair.pass(ContinuationPingPong.PING);
    }
  }

  /** Suspends {@code frames} frames down until it is {@code who}'s turn; false once stopped. */
  @Override
  public boolean awaitTurn(int frames, int who) throws IOException {
    if (frames > 1) {
      // The synchronized wait takes the last frame's place, so the depth is the same. It is a method
      // of its own: one whose region can suspend runs interpreted (the JIT compilers refuse the
      // engine's capture and restore of its monitor), and would slow the plain wait if it were here.
      if (frames == 2 && synchronizedWait) {
        return awaitTurnLocked(who);
      }
      return throughInterface ? turns.awaitTurn(frames - 1, who) : awaitTurn(frames - 1, who);
    }
    while (pair.turn() != who) {
      if (pair.stopped()) {
        return false;
      }
      if (threadLocal) {
        WHO.set(who);
      }
      if (!Suspend.await(pair.registration(who), waitNanos)) {
        pair.timedOut();
      }
      if (threadLocal && WHO.get() != who) {
        throw new IllegalStateException("another session's thread-local after the wait");
      }
    }
    return !pair.stopped();
  }

  /** The last frame of {@link #awaitTurn}, waiting inside the session's own monitor. */
  private boolean awaitTurnLocked(int who) throws IOException {
    synchronized (monitors[who]) {
      while (pair.turn() != who) {
        if (pair.stopped()) {
          return false;
        }
        if (!Suspend.await(pair.registration(who), waitNanos)) {
          pair.timedOut();
        }
      }
      return !pair.stopped();
    }
  }
}
