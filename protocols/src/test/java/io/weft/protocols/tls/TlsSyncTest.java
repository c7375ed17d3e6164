package io.weft.protocols.tls;

import io.weft.protocols.SessionMode;

/** {@link TlsProtocolsTest} in SYNC, one session after another (SessionMode.sync). */
class TlsSyncTest extends TlsProtocolsTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.sync();
  }

  @Override
  protected int httpsSessionsAtScale() {
    return 20;
  }
}
