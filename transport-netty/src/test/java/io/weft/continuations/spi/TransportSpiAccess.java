package io.weft.continuations.spi;

import io.weft.transport.Transport;
import io.weft.transport.spi.ConnectionState;

/**
 * The parts of a suspending transport an SPI user's own wait works with ({@link
 * SuspendingWaits#awaitInput}'s arguments), for tests: not rewritten, it only hands them out.
 */
public final class TransportSpiAccess {
  private TransportSpiAccess() {
  }

  /** The transport's waits. */
  public static SuspendingWaits waits(Transport transport) {
    return suspending(transport).waits();
  }

  /** The transport's connection state. */
  public static ConnectionState<?, ?> state(Transport transport) {
    return suspending(transport).connectionState();
  }

  /** The transport's own read waiter (a {@link TimedRegistration} every read reuses). */
  public static WaitRegistration readWaiter(Transport transport) {
    return suspending(transport).readWaiter();
  }

  private static SuspendingConnectionTransport<?> suspending(Transport transport) {
    if (!(transport instanceof SuspendingConnectionTransport)) {
      throw new IllegalArgumentException("not a suspending transport: " + transport.getClass());
    }
    return (SuspendingConnectionTransport<?>) transport;
  }
}
