package io.weft.protocols.tls;

import io.weft.protocols.redis.RedisClient;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/** A plaintext {@code PING}, for a TLS port; returns the reply. */
public class PlaintextRedisPingSession implements SessionTask<String> {
  @Override
  public String run(Transport transport, int index) throws Exception {
    return new RedisClient(transport).callString("PING");
  }
}
