package io.weft.perf.micro;

import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.openjdk.jmh.annotations.CompilerControl;

/**
 * Two threads, ping and pong, handing a turn back and forth with
 * {@link LockSupport#park(Object)} and {@link LockSupport#unpark(Thread)}; each waits
 * {@code depth} frames down, as a session waits deep inside a protocol client's read.
 *
 * <p>Lifecycle: {@link #start} creates both threads (idle, parked); each {@link #run(int)}
 * drives a batch of round trips from the calling thread and returns when the batch is done;
 * {@link #stop()} ends both threads. One round trip is two park/unpark pairs: ping parks until
 * pong unparks it, pong parks until ping unparks it.
 */
final class ParkPingPong {
  private static final int IDLE = 0;
  private static final int PING = 1;
  private static final int PONG = 2;
  private static final int DONE = 3;

  private final int depth;
  private volatile int turn = IDLE;
  private volatile int rounds;
  private volatile boolean stopped;
  private volatile Thread driver;
  private Thread ping;
  private Thread pong;

  private ParkPingPong(int depth) {
    if (depth < 1) {
      throw new IllegalArgumentException("depth < 1: " + depth);
    }
    this.depth = depth;
  }

  /** Starts ping and pong with {@code starter}, which starts a thread running its argument. */
  static ParkPingPong start(int depth, Function<Runnable, Thread> starter) {
    ParkPingPong pair = new ParkPingPong(depth);
    // pong first: ping never hands over before the first run(), by which time both are set.
    pair.pong = starter.apply(pair::pongLoop);
    pair.ping = starter.apply(pair::pingLoop);
    return pair;
  }

  /** Runs {@code roundTrips} round trips and returns when they are done. */
  void run(int roundTrips) {
    driver = Thread.currentThread();
    rounds = roundTrips;
    turn = PING;
    LockSupport.unpark(ping);
    while (turn != DONE) {
      LockSupport.park(this);
    }
  }

  /** Ends both threads and waits for them. */
  void stop() throws InterruptedException {
    stopped = true;
    LockSupport.unpark(ping);
    LockSupport.unpark(pong);
    ping.join();
    pong.join();
  }

  private void pingLoop() {
    while (awaitTurn(depth, PING)) {
      int n = rounds;
      for (int i = 0; i < n; i++) {
        turn = PONG;
        LockSupport.unpark(pong);
        if (!awaitTurn(depth, PING)) {
          return;
        }
      }
      turn = DONE;
      LockSupport.unpark(driver);
    }
  }

  private void pongLoop() {
    while (awaitTurn(depth, PONG)) {
      turn = PING;
      LockSupport.unpark(ping);
    }
  }

  /** Parks {@code frames} frames down until it is {@code who}'s turn; false once stopped. */
  @CompilerControl(CompilerControl.Mode.DONT_INLINE)
  private boolean awaitTurn(int frames, int who) {
    if (frames > 1) {
      return awaitTurn(frames - 1, who);
    }
    while (turn != who) {
      if (stopped) {
        return false;
      }
      LockSupport.park(this);
    }
    return !stopped;
  }
}
