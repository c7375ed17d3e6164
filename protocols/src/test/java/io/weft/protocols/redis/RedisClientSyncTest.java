package io.weft.protocols.redis;

import io.weft.protocols.SessionMode;

/** {@link RedisClientTest} in {@code SYNC} mode over {@code SocketTransport}. */
class RedisClientSyncTest extends RedisClientTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.sync();
  }
}
