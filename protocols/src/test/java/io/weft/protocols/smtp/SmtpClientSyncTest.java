package io.weft.protocols.smtp;

import io.weft.protocols.SyncSocketMode;
import io.weft.protocols.TransportMode;

/** {@link SmtpClientTest} in {@code SYNC} mode over {@code SocketTransport}. */
class SmtpClientSyncTest extends SmtpClientTest {
  @Override
  protected TransportMode newMode() {
    return new SyncSocketMode();
  }
}
