package io.weft.transport;

import javax.net.ssl.SSLException;

/**
 * The peer ended a TLS session that had completed its handshake with a fatal alert: a server
 * that refuses the client's certificate only after the handshake (TLS 1.3 client authentication:
 * {@code certificate_required}, {@code bad_certificate}), a record that failed its integrity check
 * ({@code bad_record_mac}), a peer that found a protocol error ({@code unexpected_message}). The
 * message names the peer and the alert, as {@code the peer at host:port sent a fatal TLS alert
 * after the handshake: certificate_required (...)}; the JDK's exception is the cause. The same
 * type on every transport and in every mode, thrown by the read, write or flush that finds it.
 * The transport is unusable; close it.
 *
 * <p>A failure during the handshake is a {@link TlsHandshakeException} instead.
 */
public class TlsAlertException extends SSLException {
  private static final long serialVersionUID = 1L;

  /** The alert's name, e.g. {@code bad_certificate}; serialized with the exception. */
  private final String alert;

  /**
   * Makes one.
   *
   * @param message which peer and which alert, as the class javadoc shows
   * @param alert the alert's name as TLS spells it, such as {@code certificate_required}
   * @param cause the TLS library's exception
   */
  public TlsAlertException(String message, String alert, Throwable cause) {
    super(message, cause);
    this.alert = alert;
  }

  /**
   * The alert's name as the TLS specifications spell it, such as {@code certificate_required}
   * or {@code bad_record_mac}.
   *
   * @return the alert's name
   */
  public String alert() {
    return alert;
  }
}
