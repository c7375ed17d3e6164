package io.weft.protocols.tls;

import io.weft.protocols.SessionMode;

/** {@link TlsProtocolsTest} in SessionMode.continuations(1). */
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
