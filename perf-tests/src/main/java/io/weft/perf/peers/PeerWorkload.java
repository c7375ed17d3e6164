package io.weft.perf.peers;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * One measured run of the peers workload: {@code totalSessions} sessions against one
 * redis-server, at most {@code concurrency} (N) in flight and N from the start, each on its own
 * new connection doing {@code requestsPerSession} sequential {@code INCR}s of key
 * {@code peers:<session mod keys>}; a session that ends makes room for the next. Immutable.
 */
final class PeerWorkload {
  final InetSocketAddress redis;
  final int concurrency;
  final int totalSessions;
  final int requestsPerSession;
  final int keys;
  final long timeoutNanos;

  PeerWorkload(InetSocketAddress redis, int concurrency, int totalSessions, int requestsPerSession, int keys,
      long timeout, TimeUnit unit) {
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency < 1: " + concurrency);
    }
    if (totalSessions < concurrency) {
      throw new IllegalArgumentException("totalSessions < concurrency: " + totalSessions + " < " + concurrency);
    }
    if (requestsPerSession < 1) {
      throw new IllegalArgumentException("requestsPerSession < 1: " + requestsPerSession);
    }
    if (keys < 1) {
      throw new IllegalArgumentException("keys < 1: " + keys);
    }
    this.redis = redis;
    this.concurrency = concurrency;
    this.totalSessions = totalSessions;
    this.requestsPerSession = requestsPerSession;
    this.keys = keys;
    this.timeoutNanos = unit.toNanos(timeout);
  }

  /**
   * The run for N sessions in flight that times about {@code roundTrips} round trips: whole
   * sessions, never fewer than N of them.
   */
  static PeerWorkload forRoundTrips(InetSocketAddress redis, int concurrency, long roundTrips,
      int requestsPerSession, int keys, long timeout, TimeUnit unit) {
    long sessions = Math.max(concurrency, (roundTrips + requestsPerSession - 1) / requestsPerSession);
    if (sessions > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("too many round trips: " + roundTrips);
    }
    return new PeerWorkload(redis, concurrency, (int) sessions, requestsPerSession, keys, timeout, unit);
  }

  long roundTrips() {
    return (long) totalSessions * requestsPerSession;
  }
}
