package io.weft.protocols.redis;

import io.weft.protocols.SessionMode;

/** {@link RedisClientTest} in {@code THREADS} mode over {@code SocketTransport}. */
class RedisClientThreadsTest extends RedisClientTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.threads();
  }

  @Override
  protected int sessionsAtScale() {
    return 500;
  }
}
