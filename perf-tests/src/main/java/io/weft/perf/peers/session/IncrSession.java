package io.weft.perf.peers.session;

import io.weft.protocols.redis.RedisClient;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.function.LongConsumer;

/**
 * One session of the peers workload as a plain blocking Redis client: {@code requests}
 * sequential {@code INCR}s (each sent, flushed and answered before the next; no pipelining) of
 * the key {@code peers:<index mod keys>} on its own connection. Returns the number of round
 * trips done.
 *
 * <p>Runs under Weft's session runner in every mode: constructor arguments of JDK types only,
 * e.g. {@code runner.run(IncrSession.class, sessions, 20, 1000, roundTrips)}; {@code latency}
 * gets each round trip's start ({@link System#nanoTime()}) once its integer reply is in.
 */
public final class IncrSession implements SessionTask<Integer> {
  private final int requests;
  private final int keys;
  private final LongConsumer latency;

  public IncrSession(int requests, int keys, LongConsumer latency) {
    if (requests < 1) {
      throw new IllegalArgumentException("requests < 1: " + requests);
    }
    if (keys < 1) {
      throw new IllegalArgumentException("keys < 1: " + keys);
    }
    this.requests = requests;
    this.keys = keys;
    this.latency = latency;
  }

  @Override
  public Integer run(Transport transport, int index) throws Exception {
    RedisClient redis = new RedisClient(transport);
    String key = "peers:" + (index % keys);
    for (int i = 0; i < requests; i++) {
      long start = System.nanoTime();
      redis.callLong("INCR", key);
      latency.accept(start);
    }
    return requests;
  }
}
