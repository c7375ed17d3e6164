package io.weft.protocols.callers;

import io.weft.protocols.redis.RedisClient;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/** Sends PING; the scripted server answers with an error reply, or with a reply of no known type. */
public final class RedisCallTask implements SessionTask<Object> {
  @Override
  public Object run(Transport transport, int index) throws Exception {
    return new RedisClient(transport).call("PING");
  }
}
