package io.weft.protocols.http;

import io.weft.protocols.SessionMode;

/** {@link HttpClientTest} in {@code THREADS} mode over {@code SocketTransport}. */
class HttpClientThreadsTest extends HttpClientTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.threads();
  }

  @Override
  protected int sessionsAtScale() {
    return 500;
  }
}
