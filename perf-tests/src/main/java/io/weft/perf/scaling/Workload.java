package io.weft.perf.scaling;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import io.weft.perf.internal.ExchangeLatency;

/**
 * What one run asks of a {@link SessionDriver}: how many concurrent sessions of how many exchanges,
 * against which echo server, and where to record each exchange's latency (nanoseconds, from
 * just before the write to the checked reply).
 */
public final class Workload {
  public final TransportKind transport;
  public final List<SocketAddress> servers;
  public final int sessions;
  public final int transactions;
  /** Most connects pending at once, so a burst does not overflow the accept backlog. */
  public final int connectsInFlight;
  public final long timeoutNanos;
  public final ExchangeLatency latency;

  public Workload(TransportKind transport, List<? extends SocketAddress> servers, int sessions,
      int transactions, int connectsInFlight, long timeout, TimeUnit unit, ExchangeLatency latency) {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("servers is empty");
    }
    if (sessions < 1) {
      throw new IllegalArgumentException("sessions < 1: " + sessions);
    }
    if (transactions < 1) {
      throw new IllegalArgumentException("transactions < 1: " + transactions);
    }
    if (connectsInFlight < 1) {
      throw new IllegalArgumentException("connectsInFlight < 1: " + connectsInFlight);
    }
    this.transport = transport;
    this.servers = List.copyOf(servers);
    this.sessions = sessions;
    this.transactions = transactions;
    this.connectsInFlight = connectsInFlight;
    this.timeoutNanos = unit.toNanos(timeout);
    this.latency = latency;
  }

  /** The server session {@code index} talks to: round robin over {@link #servers}. */
  public SocketAddress serverFor(int index) {
    return servers.get(index % servers.size());
  }
}
