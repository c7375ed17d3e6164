package io.weft.transport;

import javax.net.ssl.SSLException;

/**
 * A plaintext session's peer speaks TLS: the first bytes it sent were a TLS alert record, the
 * answer a TLS server gives to bytes that are not a TLS handshake (the JDK's
 * {@code SSLServerSocket} sends {@code unexpected_message}, for example). The client connected
 * without TLS to a TLS port; connecting with {@link TlsSettings}, or calling
 * {@link Transport#startTls} where the protocol upgrades, is what the peer expects. The message
 * names the peer and the alert.
 *
 * <p>It is recognised only at the very start of a plaintext stream, and only when the bytes there
 * are exactly an alert record's: content type 21, a TLS version (3.0 to 3.4), a length of 2, a
 * level (warning or fatal) and a description. Any other first bytes, and anything after the
 * first bytes have been read, are data as usual. Many TLS servers send no alert at all and just
 * close or reset the connection, or wait for a handshake; then the read ends as any read would
 * (end of stream, a reset, a timeout). The transport has been closed.
 */
public class TlsRequiredException extends SSLException {
  private static final long serialVersionUID = 1L;

  /** The alert's description code, 0 to 255; serialized with the exception. */
  private final int alertDescription;

  /**
   * Makes one.
   *
   * @param message which peer, which alert, and what to do instead
   * @param alertDescription the alert's description code (RFC 8446 section 6), e.g. 10 for
   *     {@code unexpected_message}
   */
  public TlsRequiredException(String message, int alertDescription) {
    super(message);
    this.alertDescription = alertDescription;
  }

  /**
   * The description code of the alert the peer sent, e.g. 10 for {@code unexpected_message} or
   * 70 for {@code protocol_version}.
   *
   * @return the code, 0 to 255
   */
  public int alertDescription() {
    return alertDescription;
  }
}
