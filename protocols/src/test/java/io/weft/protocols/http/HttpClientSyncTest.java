package io.weft.protocols.http;

import io.weft.protocols.SyncSocketMode;
import io.weft.protocols.TransportMode;

/** {@link HttpClientTest} in {@code SYNC} mode over {@code SocketTransport}. */
class HttpClientSyncTest extends HttpClientTest {
  @Override
  protected TransportMode newMode() {
    return new SyncSocketMode();
  }
}
