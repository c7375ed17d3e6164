package io.weft.transport.spi;

import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * How a blocking transport over an I/O library waits: on one of the library's futures or for
 * input on the connection's {@link ConnectionState}, by parking the calling thread. The same shape
 * as continuations-spi's {@code SuspendingWaits}, which suspends a continuation instead: both
 * register a one-shot wake-up with the state ({@link ConnectionState#wakeWhenReadable},
 * {@link ConnectionState#wakeWhenEnded} beside the future's own listener), both end a wait for a
 * future when the connection ends, whoever ends it, and leave it to the caller to tell why (so a
 * close reads the same in both), and both wait for input on a connection whose library can lose a
 * resume of reading in slices of at most {@link ConnectionState#REASSERT_NANOS}, re-asserting the
 * read interest between them; the slices add up to exactly the caller's wait.
 *
 * <p>Time is read from the {@link Ticker} given at construction. Every wait refuses at once to
 * run on the library's I/O thread ({@link ConnectionState#checkMayBlock}). Stateless apart from
 * the ticker: one per connector, shared by its transports.
 */
public final class BlockingWaits {
  private static final BlockingWaits SYSTEM = new BlockingWaits(Ticker.system());

  private final Ticker ticker;

  /**
   * Waits that read time from {@code ticker}.
   *
   * @param ticker the clock of every wait
   */
  public BlockingWaits(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /**
   * The clock every wait reads.
   *
   * @return the ticker given at construction
   */
  public Ticker ticker() {
    return ticker;
  }

  /**
   * Waits on {@link System#nanoTime()}.
   *
   * @return the shared waits on the system clock
   */
  public static BlockingWaits system() {
    return SYSTEM;
  }

  /**
   * Waits until {@code future} is done or {@code state}'s connection ends (closed by its owner or
   * the peer, or failed), for at most {@code nanos} ({@link Deadlines#FOREVER} for no bound).
   *
   * @param <F> the library's future type
   * @param state the connection's state
   * @param future the future
   * @param nanos the longest wait
   * @param what the wait, for messages
   * @return true when done or ended (the caller tells which), false when the time ran out
   * @throws io.weft.transport.BlockingOperationException at once, on the library's I/O thread,
   *     if the future is not done
   * @throws InterruptedIOException if the thread is interrupted; its interrupt flag is set again
   */
  public <F> boolean awaitDone(ConnectionState<F, ?> state, F future, long nanos, String what)
      throws InterruptedIOException {
    if (state.isDone(future)) {
      return true;
    }
    state.checkMayBlock(what);
    long start = ticker.nanoTime();
    while (!state.isDone(future) && !state.hasEnded()) {
      Unpark wake = new Unpark();
      if (!state.wakeWhenEnded(wake)) {
        return true;
      }
      // A future done meanwhile runs the wake-up inline.
      state.wakeWhenDone(future, wake);
      boolean woken;
      try {
        woken = wake.park(left(nanos, start), what);
      } finally {
        state.cancelEndWakeup();
      }
      if (!woken) {
        return state.isDone(future) || state.hasEnded();
      }
    }
    return true;
  }

  /**
   * Waits until input arrives on {@code state} (after a poll that answered "need more": bytes,
   * end of stream, a failure or a close), for at most {@code nanos}, marking the reader as
   * waiting meanwhile.
   *
   * @param state the connection's state
   * @param nanos the longest wait ({@link Deadlines#FOREVER} for no bound)
   * @return true when input may have arrived (poll again), false when the time ran out
   * @throws io.weft.transport.BlockingOperationException at once, on the library's I/O thread
   * @throws InterruptedIOException if the thread is interrupted; its interrupt flag is set again
   */
  public boolean awaitInput(ConnectionState<?, ?> state, long nanos) throws InterruptedIOException {
    state.checkMayBlock("input");
    state.readerWaiting(true);
    try {
      long start = ticker.nanoTime();
      for (;;) {
        Unpark wake = new Unpark();
        if (!state.wakeWhenReadable(wake)) {
          return true;
        }
        long left = left(nanos, start);
        boolean sliced = state.needsReassertion()
            && (left == Deadlines.FOREVER || left > ConnectionState.REASSERT_NANOS);
        boolean woken;
        try {
          woken = wake.park(sliced ? ConnectionState.REASSERT_NANOS : left, "input");
        } catch (InterruptedIOException e) {
          state.cancelWakeup();
          throw e;
        }
        if (woken) {
          return true;
        }
        // The timed-out wake-up is still registered with the state; a new one replaces it.
        state.cancelWakeup();
        if (!sliced) {
          return false;
        }
        state.reassertTraffic();
      }
    } finally {
      state.readerWaiting(false);
    }
  }

  private long left(long nanos, long start) {
    return nanos == Deadlines.FOREVER ? Deadlines.FOREVER : nanos - (ticker.nanoTime() - start);
  }

  /**
   * A one-shot wake-up that unparks the thread that made it. {@link #park} waits for it by the
   * ticker's time; a wake-up that comes after the wait gave up leaves a spare permit, which only
   * makes a later park of this thread look once more.
   */
  private final class Unpark implements Runnable {
    private final Thread waiter = Thread.currentThread();
    private volatile boolean woken;

    @Override
    public void run() {
      woken = true;
      LockSupport.unpark(waiter);
    }

    /** True once woken; false when {@code nanos} passed first (at once when not positive). */
    boolean park(long nanos, String what) throws InterruptedIOException {
      long start = ticker.nanoTime();
      while (!woken) {
        long left = nanos == Deadlines.FOREVER ? Deadlines.FOREVER : nanos - (ticker.nanoTime() - start);
        if (left <= 0L && nanos != Deadlines.FOREVER) {
          return false;
        }
        if (nanos == Deadlines.FOREVER) {
          LockSupport.park(this);
        } else {
          LockSupport.parkNanos(this, left);
        }
        if (Thread.interrupted()) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while waiting for " + what);
        }
      }
      return true;
    }
  }
}
