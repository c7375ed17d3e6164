package io.weft.protocols.http;

import io.weft.protocols.SessionMode;

/**
 * {@link HttpClientTest} as continuations on one worker thread, over
 * {@code ContinuingMinaTransport}: the client classes are rewritten at load time, unannotated.
 */
class HttpClientContinuationsTest extends HttpClientTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.continuations(1);
  }

  @Override
  protected int sessionsAtScale() {
    return 1_000;
  }
}
