package io.weft.perf.micro;

import io.weft.continuations.spi.WaitRegistration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The turn two Weft sessions, ping and pong, hand back and forth in
 * {@link ContinuationSuspendBenchmark}: {@link ParkPingPong}'s protocol, with
 * {@code Suspend.await} on a {@link WaitRegistration} of this class in place of
 * {@code LockSupport.park}, and the other session's wake-up in place of {@code unpark}.
 *
 * <p>It lives outside the rewritten package, so the benchmark and the session task (loaded by
 * the continuation class loader) share one instance. Lifecycle: the runner's two sessions wait
 * idle; each {@link #run(int)} drives a batch of round trips from the calling thread and
 * returns when it is done; {@link #stop()} lets both sessions end.
 */
public final class ContinuationPingPong {
  public static final int IDLE = 0;
  public static final int PING = 1;
  public static final int PONG = 2;
  public static final int DONE = 3;

  private volatile int turn = IDLE;
  private volatile int rounds;
  private volatile boolean stopped;
  private volatile Thread driver;
  private volatile String ended;
  private final Slot[] slots = {null, new Slot(PING), new Slot(PONG)};
  private final LongAdder timeouts = new LongAdder();

  /** Whose turn it is: {@link #PING}, {@link #PONG}, or neither. */
  public int turn() {
    return turn;
  }

  /** Round trips in the current batch. */
  public int rounds() {
    return rounds;
  }

  public boolean stopped() {
    return stopped;
  }

  /** What {@code who} waits on: woken when the turn passes to it or the pair stops. */
  public WaitRegistration registration(int who) {
    return slots[who];
  }

  /** Gives the turn to {@code who} and wakes it. */
  public void pass(int who) {
    turn = who;
    slots[who].fire();
  }

  /** Ping, at the end of a batch: hands control back to the driver. */
  public void batchDone() {
    turn = DONE;
    LockSupport.unpark(driver);
  }

  /** A wait that timed out: counted, never expected in this benchmark. */
  public void timedOut() {
    timeouts.increment();
  }

  public long timeouts() {
    return timeouts.sum();
  }

  /** Runs {@code roundTrips} round trips and returns when they are done. */
  void run(int roundTrips) {
    driver = Thread.currentThread();
    rounds = roundTrips;
    pass(PING);
    while (turn != DONE) {
      if (ended != null) {
        throw new IllegalStateException("the sessions ended mid-batch: " + ended);
      }
      LockSupport.park(this);
    }
  }

  /** The run of the two sessions has ended, with {@code how}: a driver waiting fails. */
  void ended(String how) {
    ended = how;
    Thread d = driver;
    if (d != null) {
      LockSupport.unpark(d);
    }
  }

  /** Lets both sessions end (they return from their task). */
  void stop() {
    stopped = true;
    slots[PING].fire();
    slots[PONG].fire();
  }

  /** One side's wait: holds the wake-up of its current {@code Suspend.await}, if any. */
  private final class Slot implements WaitRegistration {
    private final int who;
    private final AtomicReference<Runnable> waiter = new AtomicReference<>();

    Slot(int who) {
      this.who = who;
    }

    @Override
    public void register(Runnable wakeUp) {
      waiter.set(wakeUp);
      // Register, then re-check: a pass before the set above found no waiter to run.
      if ((turn == who || stopped) && waiter.compareAndSet(wakeUp, null)) {
        wakeUp.run();
      }
    }

    void fire() {
      Runnable wakeUp = waiter.getAndSet(null);
      if (wakeUp != null) {
        wakeUp.run();
      }
    }
  }
}
