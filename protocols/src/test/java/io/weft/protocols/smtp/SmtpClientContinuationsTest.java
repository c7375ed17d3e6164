package io.weft.protocols.smtp;

import io.weft.protocols.SessionMode;

/**
 * {@link SmtpClientTest} as continuations on one worker thread, over
 * {@code ContinuingMinaTransport}: the client classes are rewritten at load time, unannotated.
 */
class SmtpClientContinuationsTest extends SmtpClientTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.continuations(1);
  }

  @Override
  protected int sessionsAtScale() {
    return 1_000;
  }
}
