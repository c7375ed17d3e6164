package io.weft.protocols.smtp;

import io.weft.protocols.SessionMode;

/** {@link SmtpClientTest} in {@code THREADS} mode over {@code SocketTransport}. */
class SmtpClientThreadsTest extends SmtpClientTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.threads();
  }

  @Override
  protected int sessionsAtScale() {
    return 500;
  }
}
