package io.weft.simulation.clients;

import io.weft.protocols.redis.RedisClient;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** SET a key of its own, INCR a shared counter, GET the key back; returns the counter's value. */
public final class RedisSession implements SessionTask<Long> {
  public RedisSession() {}

  @Override
  public Long run(Transport transport, int session) throws IOException {
    RedisClient redis = new RedisClient(transport);
    String key = "key:" + session;
    if (!"OK".equals(redis.callString("SET", key, "value " + session))) {
      throw new ProtocolViolationException("SET not OK");
    }
    long counter = redis.callLong("INCR", "counter");
    String value = redis.callString("GET", key);
    if (!("value " + session).equals(value)) {
      throw new ProtocolViolationException("GET " + key + " gave " + value);
    }
    return counter;
  }
}
