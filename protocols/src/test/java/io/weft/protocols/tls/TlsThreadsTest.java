package io.weft.protocols.tls;

import io.weft.protocols.SessionMode;

/**
 * {@link TlsProtocolsTest} on a platform thread per session over SocketTransport,
 * 200 HTTPS sessions at once.
 */
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
