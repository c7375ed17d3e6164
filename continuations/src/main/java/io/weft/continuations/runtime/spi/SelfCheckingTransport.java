package io.weft.continuations.runtime.spi;

import io.weft.continuations.internal.runtime.Guard;
import io.weft.transport.Transport;

/**
 * A {@link Transport} that makes continuation mode's entry check itself, so that the runtime
 * hands it to the session's task as it is.
 *
 * <p>Otherwise the task sees the transport behind a checked wrapper: on entry to every read,
 * write, {@code flush} and {@code startTls}, the wrapper checks that the engine is not in the
 * middle of a capture, so a suspend swallowed by a frame that was not rewritten ends the session
 * at its next transport call, before that call does anything. The wrapper is one frame more on
 * every suspend and resume. A transport that implements this interface promises to call
 * {@link #checkEntry()} first thing in each of those methods (every overload, and
 * {@code LineParsing.parseLine} if it offers that), and gets the same check without the frame: a
 * busy simulation suspends millions of times.
 *
 * <p>Only for transports built for the continuation runtime (the simulation's). The MINA and Netty
 * transports ({@code io.weft.continuations.spi.SuspendingConnectionTransport}) make the same check
 * through the SPI's {@code Suspend.checkEntry()} and are not wrapped either. A transport that
 * implements it and skips the call in one method lets a frame that swallowed a suspend make that
 * call: it is caught later (at the session's next wait or resume), after the call had its effect.
 */
public interface SelfCheckingTransport extends Transport {
  /**
   * The entry check: returns at once outside a continuation, and while the session runs
   * normally; throws the runtime's {@code NotInstrumentedError}, which ends the session, if a
   * suspend is being captured (a frame that was not rewritten swallowed it and called on).
   */
  static void checkEntry() {
    Guard.onEntry();
  }
}
