package io.weft.protocols.http;

import io.weft.protocols.SessionMode;

/** {@link HttpClientTest} in {@code SYNC} mode over {@code SocketTransport}. */
class HttpClientSyncTest extends HttpClientTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.sync();
  }
}
