package io.weft.samples.agent;

import io.weft.protocols.redis.RedisClient;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/** One Redis session: {@code PING} a few times; returns how many {@code PONG}s came back. */
public final class PingTask implements SessionTask<Integer> {
  private final int pings;

  /** @param pings PINGs per session */
  public PingTask(int pings) {
    this.pings = pings;
  }

  @Override
  public Integer run(Transport transport, int index) throws Exception {
    RedisClient redis = new RedisClient(transport);
    int pongs = 0;
    for (int i = 0; i < pings; i++) {
      if ("PONG".equals(redis.callString("PING"))) {
        pongs++;
      }
    }
    return pongs;
  }
}
