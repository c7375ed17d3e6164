package io.weft.protocols.redis;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/**
 * One session at scale: INCR its own key {@code 1 + index % 5} times, then GET it. Returns
 * what GET said, which must be the count; a named class so the runner can load it by name.
 */
public class RedisIncrThenGetSession implements SessionTask<String> {

  /** The key session {@code index} uses. */
  public static String key(int index) {
    return "weft:session:" + index;
  }

  /** What GET must return for session {@code index}. */
  public static String expected(int index) {
    return Integer.toString(1 + index % 5);
  }

  @Override
  public String run(Transport transport, int index) throws Exception {
    RedisClient redis = new RedisClient(transport);
    String key = key(index);
    int count = 1 + index % 5;
    for (int i = 1; i <= count; i++) {
      long value = redis.callLong("INCR", key);
      if (value != i) {
        return "INCR " + key + " returned " + value + " where " + i + " was due";
      }
    }
    return redis.callString("GET", key);
  }
}
