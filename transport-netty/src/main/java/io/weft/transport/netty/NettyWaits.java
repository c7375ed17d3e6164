package io.weft.transport.netty;

import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import io.weft.continuations.spi.Suspend;
import io.weft.transport.internal.Deadlines;
import io.weft.transport.netty.internal.ChannelState;
import io.weft.transport.netty.internal.EventLoops;
import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.javaflow.api.continuable;

/**
 * How a {@link ContinuingNettyConnector} and its transports wait: on a Netty {@link Future} or
 * for input, through {@link Suspend#await}, so that a continuation suspends and an ordinary
 * thread blocks. One per connector, shared by its transports; it also counts how waits ended.
 *
 * <p>The caller has already looked once (the fast path, counted as {@link #immediate}); then
 * {@code Suspend.await} ({@link #suspends}). Nothing here spins before suspending: on the event
 * loop a spin would only delay the very read that ends it.
 *
 * <p>Every method that can reach {@code Suspend.await} carries {@code @continuable} and is
 * rewritten by the JavaFlow build step; nothing here suspends in a lambda (the registration
 * lambdas only register).
 */
final class NettyWaits {
  final LongAdder immediate = new LongAdder();
  final LongAdder suspends = new LongAdder();

  /**
   * Waits until {@code future} is done or {@code state}'s channel ends, for at most
   * {@code nanos} ({@link Deadlines#FOREVER} for no bound). Returns true when done or ended (the
   * caller tells which), false when the time ran out.
   *
   * @throws io.weft.transport.BlockingOperationException at once, on an event loop outside a
   *     session, if the future is not done
   */
  @continuable
  boolean awaitDone(ChannelState state, Future<?> future, long nanos, String what) throws IOException {
    if (future.isDone()) {
      immediate.increment();
      return true;
    }
    EventLoops.checkMaySuspend(what);
    long start = System.nanoTime();
    while (!future.isDone() && !state.hasEnded()) {
      long left = left(nanos, start);
      if (left <= 0L) {
        return false;
      }
      suspends.increment();
      boolean woken = Suspend.await(wake -> registerDoneOrEnded(state, future, wake), left);
      state.cancelEndWakeup();
      if (!woken) {
        return future.isDone() || state.hasEnded();
      }
    }
    return true;
  }

  private static void registerDoneOrEnded(ChannelState state, Future<?> future, Runnable wake) {
    if (!state.wakeWhenEnded(wake)) {
      wake.run();
      return;
    }
    @SuppressWarnings({"unchecked", "rawtypes"})
    Future<Object> f = (Future) future;
    f.addListener((GenericFutureListener<Future<Object>>) done -> wake.run());
    // Netty notifies a listener added to a done future off its event loop later, on the loop:
    // run the wake-up inline instead, so that await returns without suspending.
    if (future.isDone()) {
      wake.run();
    }
  }

  /**
   * Waits until input arrives on {@code state} (after a poll that answered "need more"), for at
   * most {@code nanos}. Returns true when it may have arrived (poll again), false when the time
   * ran out.
   *
   * @throws io.weft.transport.BlockingOperationException at once, on an event loop outside a
   *     session
   */
  @continuable
  boolean awaitInput(ChannelState state, long nanos) throws IOException {
    EventLoops.checkMaySuspend("input");
    state.readerWaiting(true);
    boolean arrived;
    // No finally: a suspension unwinds this frame without running one, and it is no end.
    try {
      suspends.increment();
      arrived = Suspend.await(wake -> registerReader(state, wake), nanos);
    } catch (IOException | RuntimeException e) {
      state.readerWaiting(false);
      throw e;
    }
    state.readerWaiting(false);
    if (!arrived) {
      // The timed-out wake-up is still registered with the state; a new one replaces it.
      state.cancelWakeup();
    }
    return arrived;
  }

  private static void registerReader(ChannelState state, Runnable wake) {
    if (!state.wakeWhenReadable(wake)) {
      wake.run();
    }
  }

  private static long left(long nanos, long start) {
    return nanos == Deadlines.FOREVER ? Deadlines.FOREVER : nanos - (System.nanoTime() - start);
  }
}
