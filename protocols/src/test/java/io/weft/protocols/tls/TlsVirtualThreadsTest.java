package io.weft.protocols.tls;

import io.weft.protocols.SessionMode;

/**
 * {@link TlsProtocolsTest} on a virtual thread per session (JDK 21+) over SocketTransport,
 * 1,000 HTTPS sessions at once.
 */
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
