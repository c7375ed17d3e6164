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
public final class PingPongTask implements SessionTask<String> {
  private final ContinuationPingPong pair;
  private final int depth;
  private final long waitNanos;

  /**
   * @param waitNanos each wait's timeout, {@link Deadlines#FOREVER} for none; a wait that times
   *     out is counted and waited again
   */
  public PingPongTask(ContinuationPingPong pair, Integer depth, Long waitNanos) {
    this.pair = pair;
    this.depth = depth;
    this.waitNanos = waitNanos;
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
  private boolean awaitTurn(int frames, int who) throws IOException {
    if (frames > 1) {
      return awaitTurn(frames - 1, who);
    }
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
