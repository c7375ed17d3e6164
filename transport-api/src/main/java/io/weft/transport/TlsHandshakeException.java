package io.weft.transport;

import javax.net.ssl.SSLHandshakeException;

/**
 * A TLS handshake failed, whatever the transport or mode: the server's certificate is not
 * trusted, has expired or names another host; the peer does not speak TLS (a plaintext server
 * on a TLS port); or the peer ended the connection during the handshake. The message says which,
 * naming the host; the JDK's own exception is the cause.
 *
 * <p>A handshake that runs out of time is a {@link TransportTimeoutException} instead, like any
 * other wait. Either way the transport has been closed.
 */
public class TlsHandshakeException extends SSLHandshakeException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes one.
   *
   * @param message which peer, and what was wrong with the handshake
   * @param cause the TLS engine's own exception, or null
   */
  @SuppressWarnings("this-escape") // SSLHandshakeException has no (message, cause) constructor
  public TlsHandshakeException(String message, Throwable cause) {
    super(message);
    if (cause != null) {
      initCause(cause);
    }
  }
}
