package io.weft.protocols.tls;

import io.weft.protocols.SessionMode;

/** {@link TlsProtocolsTest} in SessionMode.threads. */
class TlsThreadsTest extends TlsProtocolsTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.threads();
  }

  @Override
  protected int httpsSessionsAtScale() {
    return 200;
  }
}
