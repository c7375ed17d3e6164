package io.weft.protocols.smtp;

import io.weft.protocols.SessionMode;

/** {@link SmtpClientTest} in {@code SYNC} mode over {@code SocketTransport}. */
class SmtpClientSyncTest extends SmtpClientTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.sync();
  }
}
