package io.weft.protocols.http;

import io.weft.protocols.SessionMode;

/** {@link HttpClientTest} in {@code VIRTUAL_THREADS} mode over {@code SocketTransport}: JDK 21+, skipped before. */
class HttpClientVirtualThreadsTest extends HttpClientTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.virtualThreads();
  }

  @Override
  protected int sessionsAtScale() {
    return 1000;
  }
}
