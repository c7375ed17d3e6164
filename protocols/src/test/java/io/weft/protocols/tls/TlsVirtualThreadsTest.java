package io.weft.protocols.tls;

import io.weft.protocols.SessionMode;

/** {@link TlsProtocolsTest} in SessionMode.virtualThreads. */
class TlsVirtualThreadsTest extends TlsProtocolsTest {
  @Override
  protected SessionMode newMode() {
    return SessionMode.virtualThreads();
  }

  @Override
  protected int httpsSessionsAtScale() {
    return 1000;
  }
}
