package io.weft.continuations.spi;

import io.weft.transport.BlockingOperationException;
import io.weft.transport.spi.Clocked;
import io.weft.transport.spi.ConnectorCore;
import io.weft.transport.spi.Deadlines;
import io.weft.transport.spi.Ticker;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.Objects;
import org.apache.commons.javaflow.api.Continuation;
import org.apache.commons.javaflow.api.continuable;
import org.apache.commons.javaflow.core.StackRecorder;

/**
 * The one suspension primitive of Weft: what a suspending transport calls where a blocking one
 * would block.
 *
 * <pre>{@code
 * // in a transport method that carries @continuable
 * while (!future.isDone()) {            // fast path: done already, no suspend
 *   if (!Suspend.await(wake -> future.addListener(f -> wake.run()), waitNanos)) {
 *     throw timedOut();                  // the scheduler's timer fired first
 *   }
 * }
 * }</pre>
 *
 * <table>
 *   <caption>What {@link #await} does where</caption>
 *   <tr><th>caller runs</th><th>effect</th></tr>
 *   <tr><td>in a Weft session continuation ({@code CONTINUATIONS} mode)</td>
 *       <td>registers, then suspends the continuation; the thread is free. A wake-up on a
 *       transport's {@link LoopThread} may resume the session right there; any other
 *       wake-up puts it on the ready queue for a worker. A timeout is a timer, not a blocked
 *       thread.</td></tr>
 *   <tr><td>on an ordinary thread (any other mode, or plain code)</td>
 *       <td>blocks the thread until woken or timed out, so the same transport works everywhere</td></tr>
 *   <tr><td>on an {@link LoopThread} outside any session</td>
 *       <td>{@link BlockingOperationException}, at once</td></tr>
 *   <tr><td>in a continuation not started by Weft</td><td>{@link IllegalStateException}</td></tr>
 * </table>
 *
 * <p>This method is rewritten at build time; so must be every method between it and the
 * session's task: mark a transport's waiting methods {@code @continuable} and run the JavaFlow
 * build step over its classes. If a frame on the way was not rewritten the session fails with a
 * {@code NotInstrumentedError} naming it.
 */
public final class Suspend {
  private Suspend() {}

  /**
   * Waits until {@code registration}'s wake-up runs or {@code timeoutNanos} pass.
   *
   * @param timeoutNanos the longest wait; {@link Deadlines#FOREVER} (what
   *     {@link Deadlines#waitNanos} answers for an operation with no bound) for none; 0 only
   *     polls: returns true if the wake-up ran inline during registration, false otherwise. In a
   *     session it counts from the registration's {@link TimedRegistration#timedFrom()} where the
   *     registration is one and holds an unspent reading of the session's clock, else from the
   *     clock as the wait is armed (a simulation's scheduler times it from its own clock as it
   *     arms it, which cannot have moved since)
   * @return true when woken (the condition may hold: re-check it), false when the time ran out
   *     first
   * @throws SessionCancelledException if the session's run was cancelled
   * @throws java.io.InterruptedIOException if a blocked (non-continuation) caller is interrupted
   * @throws Error the runtime's {@code NotInstrumentedError} if the session would suspend
   *     through a frame that was not rewritten
   * @throws IllegalArgumentException if {@code timeoutNanos < 0}
   * @param registration registers the wake-up with whatever the session waits for
   */
  @continuable
  public static boolean await(WaitRegistration registration, long timeoutNanos) throws IOException {
    Objects.requireNonNull(registration, "registration");
    if (timeoutNanos < 0L) {
      throw new IllegalArgumentException("timeoutNanos < 0: " + timeoutNanos);
    }
    StackRecorder recorder = StackRecorder.get();
    if (recorder == null) {
      return BlockingWait.await(registration, timeoutNanos);
    }
    SuspendableSession session = sessionOf(recorder);
    SuspendableSession.PendingWait wait = session.arm(recorder, registration, timeoutNanos);
    if (wait.isSettled()) {
      return wait.result();
    }
    Continuation.suspend();
    session.resumedAtWait();
    return wait.result();
  }

  /**
   * The entry check of a transport operation in {@code CONTINUATIONS} mode: returns at once outside
   * a continuation and while the session runs normally; throws the runtime's
   * {@code NotInstrumentedError}, which ends the session, if its continuation is being captured.
   * Capturing means a frame on the way out of a suspend was not rewritten: it swallowed the suspend,
   * took the engine's placeholder for the call's result and called on. Rewritten code never calls
   * a transport while capturing, so the call is refused before it does anything.
   *
   * <p>A suspending transport handed to the session's task as it is (as {@link
   * SuspendingConnectionTransport} is, with no checked wrapper of the runtime's in front of it,
   * which would be one rewritten frame more on every suspend and resume) calls this first thing in
   * every read, write, {@code flush} and {@code startTls}.
   *
   * @throws Error the runtime's {@code NotInstrumentedError} if a suspend was swallowed
   * @throws IllegalStateException if so in a continuation that no Weft runtime started
   */
  public static void checkEntry() {
    StackRecorder recorder = StackRecorder.get();
    if (recorder != null && recorder.isCapturing) {
      Object context = recorder.getContext();
      if (context instanceof SuspendableSession) {
        throw ((SuspendableSession) context).swallowed();
      }
      throw new IllegalStateException("a transport was called while a continuation that no Weft runtime started"
          + " was being captured (context " + context + "): a frame that was not rewritten swallowed its suspend");
    }
  }

  /**
   * Refuses, in a Weft session's continuation, a connector whose waits read another clock than
   * the session's run: the run's timer times every suspension by the run's clock (its connector's),
   * and a wait computed on another would end early, late or never. Off a continuation, and in a
   * session whose runtime tells no clock, it does nothing. Once per connect: one look-up of the
   * continuation, none per wait.
   *
   * @param clock the connector's clock
   * @param remote the address of the connect, named in the message
   * @throws IllegalStateException if the session's run reads another clock
   */
  static void checkClock(Ticker clock, SocketAddress remote) {
    StackRecorder recorder = StackRecorder.get();
    if (recorder == null) {
      return;
    }
    Object context = recorder.getContext();
    if (context instanceof Clocked) {
      Ticker run = ((Clocked) context).ticker();
      if (run != clock) {
        throw new IllegalStateException(ConnectorCore.connectWhat(remote) + " not made: the connector's clock (" + clock
            + ") is not the clock of the session's run (" + run + ", the clock of the run's connector), which"
            + " times every suspension of the run; give every connector that one run uses the same Ticker"
            + " (the connectors' builders' ticker(...))");
      }
    }
  }

  private static SuspendableSession sessionOf(StackRecorder recorder) {
    Object context = recorder.getContext();
    if (context instanceof SuspendableSession) {
      return (SuspendableSession) context;
    }
    if (context instanceof LoopThread) {
      throw new BlockingOperationException("refusing to wait on I/O thread "
          + ((LoopThread) context).getName() + " outside a session: it would stall every"
          + " session the thread serves");
    }
    throw new IllegalStateException(
        "Suspend.await inside a continuation that no Weft runtime started (context " + context + ")");
  }
}
