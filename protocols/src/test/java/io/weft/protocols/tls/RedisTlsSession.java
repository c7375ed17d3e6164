package io.weft.protocols.tls;

import io.weft.protocols.redis.RedisClient;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/** SET then GET of a key of its own over a TLS connection to redis-server; returns the value. */
public class RedisTlsSession implements SessionTask<String> {
  @Override
  public String run(Transport transport, int index) throws Exception {
    if (!transport.tlsSession().isPresent()) {
      throw new AssertionError("not over TLS");
    }
    RedisClient redis = new RedisClient(transport);
    redis.callString("SET", "tls:" + index, "value " + index);
    return redis.callString("GET", "tls:" + index);
  }
}
