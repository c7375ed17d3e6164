package io.weft.protocols.tls;

import io.weft.protocols.SessionMode;

/**
 * {@link TlsProtocolsTest} as continuations on one worker over ContinuingMinaTransport,
 * 1,000 HTTPS sessions at once.
 */
class TlsContinuationsTest extends TlsProtocolsTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.continuations(1);
  }

  @Override
  protected int httpsSessionsAtScale() {
    return 1000;
  }
}
