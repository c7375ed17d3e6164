package io.weft.protocols.redis;

import io.weft.protocols.SessionMode;

/**
 * {@link RedisClientTest} as continuations on one worker thread, over
 * {@code ContinuingMinaTransport}: the client classes are rewritten at load time, unannotated.
 */
class RedisClientContinuationsTest extends RedisClientTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.continuations(1);
  }

  @Override
  protected int sessionsAtScale() {
    return 2_000;
  }
}
