package io.weft.protocols.smtp;

import io.weft.protocols.SessionMode;

/** {@link SmtpClientTest} in {@code VIRTUAL_THREADS} mode over {@code SocketTransport}: JDK 21+, skipped before. */
class SmtpClientVirtualThreadsTest extends SmtpClientTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.virtualThreads();
  }

  @Override
  protected int sessionsAtScale() {
    return 1_000;
  }
}
