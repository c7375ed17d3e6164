package io.weft.continuations.spi;

import io.weft.transport.spi.ConnectionState;
import io.weft.transport.spi.Deadlines;
import io.weft.transport.spi.Ticker;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.javaflow.api.continuable;

/**
 * How a suspending transport over an I/O library waits: on one of the library's futures or for
 * input on the connection's state ({@code ConnectionState}, transport-api's internal core of
 * the MINA and Netty transports), through {@link Suspend#await}, so that a continuation suspends
 * and an ordinary thread blocks. One per connector, shared by its transports; it also counts how
 * waits ended.
 *
 * <p>Order of a wait: the caller has already looked once (the fast path, counted as
 * {@code immediate}); then, if configured and not on a {@link LoopThread}, a brief spin
 * ({@code spun}); then {@code Suspend.await} ({@code suspends}). A read on a connection whose
 * library can lose a resume of reading, once that connection has been suspended for
 * backpressure, waits in slices of at most {@code ConnectionState.REASSERT_NANOS} and
 * re-asserts the connection's read interest between them; the slices add up to exactly the
 * caller's wait.
 *
 * <p>Every method that can reach {@code Suspend.await} carries {@code @continuable} and is
 * rewritten by this module's build; nothing here suspends in a lambda (the registration lambdas
 * only register). {@code SuspendingConnectionTransport}'s reads take {@link #awaitInput}'s steps
 * as the steps of their {@link SuspendingReads.Waiter}, and the read loop calls
 * {@code Suspend.await} itself: two rewritten frames fewer on every read that suspends.
 */
public final class SuspendingWaits {
  private static final int SPINS_PER_YIELD = 64;

  private final long spinNanos;
  private final LongAdder immediate;
  private final LongAdder spun;
  private final LongAdder suspends;
  private final Ticker ticker;

  /**
   * Waits that count in the given counters.
   *
   * @param spinNanos how long to spin for the condition before suspending; 0 for not at all
   * @param immediate counts the waits that were not needed (also given to the transports'
   *     {@link SuspendingReads})
   * @param spun counts the waits that ended during the spin
   * @param suspends counts the calls to {@link Suspend#await}
   */
  public SuspendingWaits(long spinNanos, LongAdder immediate, LongAdder spun, LongAdder suspends) {
    this(spinNanos, immediate, spun, suspends, Ticker.system());
  }

  /**
   * Waits that count in the given counters and read time from {@code ticker}: the connector's
   * clock, which a run of the {@code continuations} runner over the connector also times its
   * suspensions by (see {@link Ticker}).
   *
   * @param spinNanos how long to spin for the condition before suspending; 0 for not at all
   * @param immediate counts the waits that were not needed
   * @param spun counts the waits that ended during the spin
   * @param suspends counts the calls to {@link Suspend#await}
   * @param ticker the clock of every wait
   */
  public SuspendingWaits(long spinNanos, LongAdder immediate, LongAdder spun, LongAdder suspends, Ticker ticker) {
    if (spinNanos < 0L) {
      throw new IllegalArgumentException("spinNanos < 0: " + spinNanos);
    }
    this.spinNanos = spinNanos;
    this.immediate = Objects.requireNonNull(immediate, "immediate");
    this.spun = Objects.requireNonNull(spun, "spun");
    this.suspends = Objects.requireNonNull(suspends, "suspends");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /**
   * The clock every wait reads.
   *
   * @return the ticker given at construction ({@link Ticker#system()} unless one was)
   */
  public Ticker ticker() {
    return ticker;
  }

  /**
   * Waits with no spin, counting in counters of their own.
   *
   * @return new waits
   */
  public static SuspendingWaits withoutSpin() {
    return new SuspendingWaits(0L, new LongAdder(), new LongAdder(), new LongAdder());
  }

  /**
   * The spin before suspending.
   *
   * @return the spin in nanoseconds; 0 when off
   */
  public long spinNanos() {
    return spinNanos;
  }

  /**
   * Waits that were not needed: data already buffered, or a future already done.
   *
   * @return the counter
   */
  public LongAdder immediate() {
    return immediate;
  }

  /**
   * Waits that ended during the spin.
   *
   * @return the counter
   */
  public LongAdder spun() {
    return spun;
  }

  /**
   * Calls to {@link Suspend#await}.
   *
   * @return the counter
   */
  public LongAdder suspends() {
    return suspends;
  }

  /**
   * Waits until {@code future} is done or {@code state}'s connection ends (whoever ends it: a
   * library does not always complete a future when it closes the connection), for at most
   * {@code nanos} ({@code Deadlines.FOREVER} for no bound).
   *
   * @param <F> the library's future type
   * @param state the connection's state
   * @param future the future
   * @param nanos the longest wait
   * @param what the wait, for messages
   * @return true when done or ended (the caller tells which), false when the time ran out
   * @throws io.weft.transport.BlockingOperationException at once, on the library's I/O thread
   *     outside a session, if the future is not done
   * @throws IOException as {@link Suspend#await} throws
   */
  @continuable
  public <F> boolean awaitDone(ConnectionState<F, ?> state, F future, long nanos, String what)
      throws IOException {
    if (state.isDone(future)) {
      immediate.increment();
      return true;
    }
    state.checkMaySuspend(what);
    long start = ticker.nanoTime();
    if (maySpin() && spinUntilDone(state, future, nanos)) {
      spun.increment();
      return true;
    }
    while (!state.isDone(future) && !state.hasEnded()) {
      long left = left(nanos, start);
      if (left <= 0L) {
        return false;
      }
      suspends.increment();
      // A future that completed meanwhile runs the wake-up inline: no suspend.
      boolean woken = Suspend.await(wake -> registerDoneOrEnded(state, future, wake), left);
      state.cancelEndWakeup();
      if (!woken) {
        return state.isDone(future) || state.hasEnded();
      }
    }
    return true;
  }

  private static <F> void registerDoneOrEnded(ConnectionState<F, ?> state, F future, Runnable wake) {
    if (!state.wakeWhenEnded(wake)) {
      wake.run();
      return;
    }
    state.wakeWhenDone(future, wake);
  }

  /**
   * Waits until input arrives on {@code state} (after a poll that answered "need more"), for at
   * most {@code nanos}, marking the reader as waiting meanwhile.
   *
   * @param state the connection's state
   * @param reader registers a wake-up with {@code state}'s
   *     {@code ConnectionState.wakeWhenReadable}, or runs it at once when that returns false;
   *     one per transport, made once; if it is a {@link TimedRegistration}, its suspends here are
   *     timed from the clock as each is armed (this method takes no reading for it, and a reading
   *     it holds from an earlier wait is spent or dropped: see {@link TimedRegistration})
   * @param nanos the longest wait
   * @return true when input may have arrived (poll again), false when the time ran out
   * @throws io.weft.transport.BlockingOperationException at once, on the library's I/O thread
   *     outside a session
   * @throws IOException as {@link Suspend#await} throws
   */
  @continuable
  public boolean awaitInput(ConnectionState<?, ?> state, WaitRegistration reader, long nanos)
      throws IOException {
    // SuspendingConnectionTransport's waiter takes these same steps, in the read loop's frame.
    long start = beginInputWait(state);
    boolean arrived = false;
    // No finally: a suspension unwinds this frame without running one, and it is no end.
    try {
      if (spunForInput(state, nanos)) {
        arrived = true;
      } else {
        for (long left = firstLeft(start, nanos); left > 0L; left = left(nanos, start)) {
          long slice = slice(state, left);
          if (Suspend.await(reader, slice)) {
            arrived = true;
            break;
          }
          if (!nextSlice(state, slice, left)) {
            break;
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      state.readerWaiting(false);
      throw e;
    }
    state.readerWaiting(false);
    return arrived;
  }

  // The steps of a wait for input, for awaitInput and for the transport waiter that takes them
  // in the read loop's frame. None suspends, so none is a frame on the suspend path.

  /** Checks that the caller may wait and marks the reader as waiting; returns the wait's start. */
  long beginInputWait(ConnectionState<?, ?> state) {
    beginInputWait(state, 0L);
    return ticker.nanoTime();
  }

  /**
   * Checks that the caller may wait and marks the reader as waiting, for a wait that starts at
   * {@code start}, a reading of {@link #ticker()} the caller has already taken; returns it.
   */
  long beginInputWait(ConnectionState<?, ?> state, long start) {
    state.checkMaySuspend("input");
    state.readerWaiting(true);
    return start;
  }

  /** Spins for input first, where maySpin says so; true (and counted) if it came. */
  boolean spunForInput(ConnectionState<?, ?> state, long nanos) {
    if (maySpin() && spinUntilInput(state, nanos)) {
      spun.increment();
      return true;
    }
    return false;
  }

  /**
   * The wait left for the first suspend: after a spin, what the spin left; otherwise the whole
   * wait, read from the clock no second time (the nanoseconds since the start only make it end
   * that much later, never early; a clock read costs 25-100 ns, and the suspend reads the clock
   * again for its deadline).
   */
  long firstLeft(long start, long nanos) {
    return maySpin() ? left(nanos, start) : nanos;
  }

  /**
   * The reading of the clock that {@link #firstLeft} works the first suspend's timeout out on,
   * for the suspend to be timed from it (see {@link TimedRegistration}): after a spin, a new one;
   * otherwise the wait's {@code start}, with no second read.
   */
  long firstFrom(long start) {
    return maySpin() ? ticker.nanoTime() : start;
  }

  /**
   * The timeout of the next suspend, of a wait with {@code left} to go: all of it, or at most
   * {@code ConnectionState.REASSERT_NANOS} where the connection's read interest must be
   * re-asserted now and then. Counts the suspend.
   */
  long slice(ConnectionState<?, ?> state, long left) {
    suspends.increment();
    return left > ConnectionState.REASSERT_NANOS && state.needsReassertion()
        ? ConnectionState.REASSERT_NANOS : left;
  }

  /**
   * After a suspend of {@code slice} that timed out: forgets its wake-up (still registered with
   * the state; a new one replaces it) and, if it was only a slice of the {@code left} the wait had,
   * re-asserts the read interest and returns true to suspend again; false when the wait is over.
   */
  static boolean nextSlice(ConnectionState<?, ?> state, long slice, long left) {
    state.cancelWakeup();
    if (slice == left) {
      return false;
    }
    state.reassertTraffic();
    return true;
  }

  /**
   * True when this wait should spin first: a spin is configured and the caller is not a
   * {@link LoopThread}. A session resumed on an I/O thread would spin on the very thread that
   * reads its reply (and every other session's on that thread), so the spin could only end by
   * time; there it suspends at once.
   */
  private boolean maySpin() {
    return spinNanos > 0L && !(Thread.currentThread() instanceof LoopThread);
  }

  long left(long nanos, long start) {
    return left(nanos, start, ticker.nanoTime());
  }

  /** What is left at {@code now} (a reading of {@link #ticker()}) of a wait of {@code nanos} begun at {@code start}. */
  static long left(long nanos, long start, long now) {
    return nanos == Deadlines.FOREVER ? Deadlines.FOREVER : nanos - (now - start);
  }

  /**
   * The spin's end, on {@link System#nanoTime()}: {@code spinNanos} from now, but never past the
   * wait's own {@code nanos}. A spin is a budget of CPU in real time, whatever the wait's clock: on a
   * clock held still, a spin bounded on it would never end.
   */
  private long spinEnd(long nanos) {
    return System.nanoTime() + Math.min(spinNanos, nanos);
  }

  private <F> boolean spinUntilDone(ConnectionState<F, ?> state, F future, long nanos) {
    long end = spinEnd(nanos);
    for (int i = 1; !state.isDone(future) && !state.hasEnded(); i++) {
      if (!spinOnce(i, end)) {
        return false;
      }
    }
    return true;
  }

  private boolean spinUntilInput(ConnectionState<?, ?> state, long nanos) {
    long end = spinEnd(nanos);
    for (int i = 1; !state.inputArrived(); i++) {
      if (!spinOnce(i, end)) {
        return false;
      }
    }
    return true;
  }

  /** One turn of a spin; false once the spin's time is up. Yields now and then: 2 cores. */
  private static boolean spinOnce(int i, long end) {
    if (System.nanoTime() - end >= 0L) {
      return false;
    }
    if (i % SPINS_PER_YIELD == 0) {
      Thread.yield();
    } else {
      Thread.onSpinWait();
    }
    return true;
  }
}
