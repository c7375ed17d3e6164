package io.weft.protocols.redis;

import io.weft.protocols.SyncSocketMode;
import io.weft.protocols.TransportMode;

/** {@link RedisClientTest} in {@code SYNC} mode over {@code SocketTransport}. */
class RedisClientSyncTest extends RedisClientTest {
  @Override
  protected TransportMode newMode() {
    return new SyncSocketMode();
  }
}
