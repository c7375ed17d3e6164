package io.weft.continuations.spi;

/**
 * How a suspending transport tells {@link Suspend#await} when the thing it waits for may have
 * happened: given a {@code wakeUp} callback, arrange for it to be run once the condition may
 * hold (an I/O future completes, bytes arrive, the peer closes).
 *
 * <p>Rules for implementations:
 * <ul>
 *   <li>Register, then re-check: if the condition already holds when {@code register} runs, call
 *       {@code wakeUp.run()} right away, inline. That is the fast path: {@code await} then returns
 *       without suspending. (MINA's {@code addListener} on a finished future does exactly this.)
 *   <li>{@code wakeUp} may be run from any thread, any number of times; only the first run
 *       counts. It never blocks and never runs the session: it only makes it ready.
 *   <li>A wake-up that comes after the wait timed out or was cancelled is ignored, so there is
 *       nothing to unregister.
 *   <li>Spurious wake-ups are allowed: callers re-check their condition in a loop.
 * </ul>
 */
@FunctionalInterface
public interface WaitRegistration {

  /** Arranges for {@code wakeUp} to be run when the awaited condition may hold. */
  void register(Runnable wakeUp);
}
