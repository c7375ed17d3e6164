package io.weft.samples.simulation.client;

import io.weft.protocols.redis.RedisClient;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * An ordinary blocking client with retries: {@code increments} times INCR a shared counter, a
 * pause between them; when a call fails (a timeout, a reset) it waits, doubling the pause up to a
 * cap, reconnects with its connector, and tries again, up to {@code attempts} times per INCR.
 * Nothing in it knows about simulation: it pauses with {@code Thread.sleep}, which a simulation's
 * rewrite turns into a pause in virtual time. Returns the last counter value it saw.
 */
public final class RetryingCounterTask implements SessionTask<Long> {
  private final Connector connector;
  private final SocketAddress server;
  private final int increments;
  private final int attempts;

  /**
   * @param connector how to reconnect
   * @param server where the counter lives
   * @param increments how many INCRs each session makes
   * @param attempts how many tries per INCR
   */
  public RetryingCounterTask(Connector connector, SocketAddress server, Integer increments, Integer attempts) {
    this.connector = connector;
    this.server = server;
    this.increments = increments;
    this.attempts = attempts;
  }

  @Override
  public Long run(Transport first, int session) throws Exception {
    Transport transport = first;
    long last = 0;
    try {
      for (int i = 0; i < increments; i++) {
        long backoff = 200;
        for (int attempt = 1; ; attempt++) {
          try {
            if (transport == null) {
              transport = connector.connect(server, Timeout.of(2, TimeUnit.SECONDS));
            }
            last = new RedisClient(transport).callLong("INCR", "counter");
            break;
          } catch (IOException e) {
            if (transport != null) {
              transport.close();
              transport = null;
            }
            if (attempt == attempts) {
              throw e;
            }
            Thread.sleep(backoff);
            backoff = Math.min(backoff * 2, 5_000);
          }
        }
        Thread.sleep(500);
      }
    } finally {
      if (transport != null && transport != first) {
        transport.close();
      }
    }
    return last;
  }
}
