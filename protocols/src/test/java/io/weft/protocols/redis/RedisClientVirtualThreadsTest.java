package io.weft.protocols.redis;

import io.weft.protocols.SessionMode;

/**
 * {@link RedisClientTest} in {@code VIRTUAL_THREADS} mode over {@code SocketTransport}: JDK 21+,
 * skipped before.
 */
class RedisClientVirtualThreadsTest extends RedisClientTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.virtualThreads();
  }

  @Override
  protected int sessionsAtScale() {
    return 2_000;
  }
}
