package io.weft.transport;

/**
 * {@link Transport#startTls} refused to upgrade because plaintext bytes had already arrived past
 * the upgrade point: after the server's go-ahead and before any handshake. A server never sends
 * them; a man in the middle does, to have them read as if they came over TLS (the STARTTLS
 * command-injection class of bug, CVE-2011-0411). The message quotes them. The transport has been
 * closed.
 */
public class StartTlsInjectionException extends ProtocolViolationException {
  private static final long serialVersionUID = 1L;

  /**
   * Makes one.
   *
   * @param message what was buffered past the upgrade point, quoted
   */
  public StartTlsInjectionException(String message) {
    super(message);
  }
}
