/**
 * The runtime's SPI for whoever runs sessions on a thread of their own, in an order of their own:
 * a deterministic simulation, a test harness that steps sessions one slice at a time.
 *
 * <p>A {@link io.weft.continuations.runtime.spi.DrivenScheduler} has no thread: its caller makes
 * sessions ({@link io.weft.continuations.runtime.spi.DrivenSession}), starts them, takes them off
 * the ready queue and runs each one slice at a time (until it suspends on a wait or ends), and
 * ends their waits' timeouts on its own clock through
 * {@link io.weft.continuations.runtime.spi.WaitTimeouts}. Every call is made on that one thread.
 * The sessions are the same continuations as in {@code CONTINUATIONS} mode: their classes come
 * from a {@link io.weft.continuations.ContinuationClassLoader}, and they wait on the same
 * suspending transports.
 *
 * <p>The types here are interfaces and a final class; what implements them is the runtime's own
 * and may change shape without notice.
 */
package io.weft.continuations.runtime.spi;
