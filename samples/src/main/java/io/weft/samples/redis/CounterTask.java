package io.weft.samples.redis;

import io.weft.protocols.redis.RedisClient;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/**
 * One Redis session, as the runner runs it: set the session's own key, read it back, and count
 * the session in a shared counter. Returns the counter's value after this session's INCR.
 *
 * <p>The runner makes one instance per run and calls {@link #run} for every session, many at
 * once in the concurrent modes, so per-session state lives in locals; the field is set once
 * in the constructor. A public class with a public constructor, so that continuation mode can
 * load it by name through its rewriting class loader.
 */
public final class CounterTask implements SessionTask<Long> {
  private final String prefix;

  /** @param prefix the start of every key this task touches, e.g. {@code "sample:"} */
  public CounterTask(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public Long run(Transport transport, int index) throws Exception {
    RedisClient redis = new RedisClient(transport);
    String key = prefix + "session:" + index;
    redis.callString("SET", key, Integer.toString(index));
    String back = redis.callString("GET", key);
    if (!Integer.toString(index).equals(back)) {
      throw new IllegalStateException(key + " read back as " + back);
    }
    return redis.callLong("INCR", prefix + "sessions");
  }
}
