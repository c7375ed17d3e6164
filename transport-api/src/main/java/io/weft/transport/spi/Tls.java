package io.weft.transport.spi;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.StartTlsInjectionException;
import io.weft.transport.Timeout;
import io.weft.transport.TlsAlertException;
import io.weft.transport.TlsHandshakeException;
import io.weft.transport.TlsSettings;
import io.weft.transport.TransportTimeoutException;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.security.GeneralSecurityException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * What every transport does the same way for TLS: the host name to verify, the engine or socket
 * configured from {@link TlsSettings}, the handshake's time budget, and the one vocabulary of
 * handshake failures ({@link TlsHandshakeException} with a message that says what was wrong).
 * For transport implementations, not protocol code.
 */
public final class Tls {
  /** Endpoint identification as for HTTPS (RFC 2818), the strictest the JDK offers. */
  public static final String ENDPOINT_IDENTIFICATION = "HTTPS";

  private Tls() {}

  /**
   * The host name to send in SNI and to verify: the settings' server name, else the remote's as
   * it was given (never a reverse lookup).
   *
   * @param settings the handshake's settings
   * @param remote the peer's address
   * @return the host name, or an IP literal when the address was given as one
   * @throws IllegalArgumentException if neither names a host (an address that is not an
   *     {@link InetSocketAddress}, and no server name set)
   */
  public static String hostName(TlsSettings settings, SocketAddress remote) {
    if (settings.serverName().isPresent()) {
      return settings.serverName().get();
    }
    if (remote instanceof InetSocketAddress) {
      // getHostString, not getHostName: never a reverse lookup.
      return ((InetSocketAddress) remote).getHostString();
    }
    throw new IllegalArgumentException("TLS needs a host name; " + remote + " has none: set TlsSettings.serverName");
  }

  /**
   * The port of {@code remote}, for the engine's session cache and for messages.
   *
   * @param remote the peer's address
   * @return its port, or -1 when it is not an {@link InetSocketAddress}
   */
  public static int port(SocketAddress remote) {
    return remote instanceof InetSocketAddress ? ((InetSocketAddress) remote).getPort() : -1;
  }

  /**
   * A client engine for {@code host}, configured from {@code settings}: host name verification
   * (unless the settings turn it off), SNI for a host name (not for an IP literal), and the
   * settings' protocols and cipher suites. The handshake has not started.
   *
   * @param settings the handshake's settings
   * @param host the name to verify and send, from {@link #hostName}
   * @param port the peer's port, from {@link #port}
   * @return a new engine in client mode
   */
  public static SSLEngine newEngine(TlsSettings settings, String host, int port) {
    SSLEngine engine = settings.context().createSSLEngine(host, port);
    engine.setUseClientMode(true);
    engine.setSSLParameters(parameters(settings, engine.getSSLParameters(), host));
    return engine;
  }

  /**
   * Layers a client TLS socket for {@code host} over the connected {@code plain} socket, which it
   * closes when closed. Configured as {@link #newEngine} configures an engine. The handshake has
   * not started.
   *
   * @param settings the handshake's settings
   * @param plain the connected plaintext socket
   * @param host the name to verify and send, from {@link #hostName}
   * @param port the peer's port, from {@link #port}
   * @return a new socket in client mode
   * @throws IOException if the socket factory cannot layer the socket
   */
  public static SSLSocket newSocket(TlsSettings settings, Socket plain, String host, int port) throws IOException {
    SSLSocket socket = (SSLSocket) settings.context().getSocketFactory().createSocket(plain, host, port, true);
    socket.setUseClientMode(true);
    socket.setSSLParameters(parameters(settings, socket.getSSLParameters(), host));
    return socket;
  }

  private static SSLParameters parameters(TlsSettings settings, SSLParameters p, String host) {
    if (settings.verifiesHostname()) {
      p.setEndpointIdentificationAlgorithm(ENDPOINT_IDENTIFICATION);
    }
    if (!isIpLiteral(host)) {
      // SNI carries host names only (RFC 6066 section 3).
      p.setServerNames(List.of(new SNIHostName(host)));
    }
    if (!settings.protocols().isEmpty()) {
      p.setProtocols(settings.protocols().toArray(new String[0]));
    }
    if (!settings.cipherSuites().isEmpty()) {
      p.setCipherSuites(settings.cipherSuites().toArray(new String[0]));
    }
    return p;
  }

  static boolean isIpLiteral(String host) {
    if (host.indexOf(':') >= 0) {
      return true;
    }
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      if (c != '.' && (c < '0' || c > '9')) {
        return false;
      }
    }
    return true;
  }

  /**
   * The nanoseconds the handshake may take: the settings' handshake timeout, else the operation
   * timeout, cut to what is left of the session deadline; {@link Deadlines#FOREVER} for none.
   *
   * @param settings the handshake's settings
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started, for its deadline
   * @param what the handshake, from {@link #what}, for the message
   * @return the wait in nanoseconds, or {@link Deadlines#FOREVER}
   * @throws TransportTimeoutException if the session deadline has already passed
   */
  public static long handshakeWaitNanos(TlsSettings settings, Timeout timeout, long sessionStartNanos, String what)
      throws TransportTimeoutException {
    return handshakeWaitNanos(Ticker.system(), settings, timeout, sessionStartNanos, what);
  }

  /**
   * As {@link #handshakeWaitNanos(TlsSettings, Timeout, long, String)}, the session deadline read
   * on {@code clock}.
   *
   * @param clock the clock {@code sessionStartNanos} was read on: the connector's
   * @param settings the TLS settings
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started, on {@code clock}
   * @param what the wait, for messages
   * @return the wait in nanoseconds, positive, or {@link Deadlines#FOREVER}
   * @throws TransportTimeoutException if the session deadline has already passed
   */
  public static long handshakeWaitNanos(Ticker clock, TlsSettings settings, Timeout timeout, long sessionStartNanos,
      String what) throws TransportTimeoutException {
    long wait = Deadlines.waitNanos(clock, timeout, sessionStartNanos, what);
    if (settings.handshakeTimeoutNanos() == 0L) {
      return wait;
    }
    return Math.min(wait, settings.handshakeTimeoutNanos());
  }

  /**
   * What a handshake wait is called in messages.
   *
   * @param host the host name, from {@link #hostName}
   * @param port the port, or -1 for none
   * @return {@code "TLS handshake with host:port"}, or without {@code :port} when there is none
   */
  public static String what(String host, int port) {
    return "TLS handshake with " + host + (port < 0 ? "" : ":" + port);
  }

  /**
   * Throws {@link StartTlsInjectionException} if {@code buffered} bytes are already waiting to
   * be read at the upgrade point: plaintext past the server's go-ahead. For a transport that
   * takes its buffered bytes out to check them, as the plain-socket one does.
   *
   * @param buffered the bytes buffered unread at the upgrade point
   * @param host the host being upgraded to, for the message
   * @throws StartTlsInjectionException if {@code buffered} is not empty, quoting it
   */
  public static void checkNothingBuffered(byte[] buffered, String host) throws StartTlsInjectionException {
    if (buffered.length != 0) {
      throw new StartTlsInjectionException("refusing STARTTLS with " + host + ": " + buffered.length
          + " plaintext bytes arrived after the upgrade point, before the handshake: "
          + ProtocolViolationException.quote(buffered)
          + " (a server never sends them; an attacker injecting commands does)");
    }
  }

  /**
   * The one exception for a failed handshake: a {@link TlsHandshakeException} saying what was
   * wrong, with {@code cause} (the JDK's or MINA's exception, unwrapped here) as its cause.
   *
   * @param what the handshake, from {@link #what}; starts the message
   * @param cause what the handshake failed with, however wrapped
   * @return the exception, for the caller to throw
   */
  public static TlsHandshakeException handshakeFailed(String what, Throwable cause) {
    Throwable ssl = find(cause, SSLException.class);
    Throwable root = ssl != null ? ssl : cause;
    return new TlsHandshakeException(what + " failed: " + reason(root) + " (" + messages(root) + ")", root);
  }

  /**
   * The one exception for a fatal alert that ends a session after its handshake completed: a
   * {@link TlsAlertException} naming the peer (as the negotiated {@code session} knows it) and the
   * alert; or null when {@code failure} is not the TLS library's report of a received fatal alert.
   *
   * @param failure what ended the session, however wrapped
   * @param session the negotiated session, or null when no handshake completed (then null)
   * @return the alert exception, or null
   */
  public static TlsAlertException alertAfterHandshake(Throwable failure, SSLSession session) {
    if (session == null || failure instanceof TlsAlertException) {
      return null;
    }
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = t.getMessage();
      int at = message == null || !(t instanceof SSLException) ? -1 : message.indexOf(FATAL_ALERT);
      if (at >= 0) {
        int start = at + FATAL_ALERT.length();
        int end = start;
        while (end < message.length() && (Character.isLetterOrDigit(message.charAt(end)) || message.charAt(end) == '_')) {
          end++;
        }
        String alert = message.substring(start, end);
        String peer = session.getPeerHost() + (session.getPeerPort() < 0 ? "" : ":" + session.getPeerPort());
        return new TlsAlertException("the peer at " + peer + " sent a fatal TLS alert after the handshake: "
            + alert + " (" + messages(t) + ")", alert, t);
      }
    }
    return null;
  }

  private static final String FATAL_ALERT = "Received fatal alert: ";

  private static String reason(Throwable t) {
    if (t == null) {
      return "the connection ended during the handshake";
    }
    if (find(t, CertificateExpiredException.class) != null) {
      return "the server's certificate has expired";
    }
    if (find(t, CertificateNotYetValidException.class) != null) {
      return "the server's certificate is not yet valid";
    }
    String all = messages(t);
    if (all.contains("validity check failed")) {
      return "the server's certificate has expired or is not yet valid";
    }
    if (all.contains("No subject alternative") || all.contains("No name matching")) {
      return "the server's certificate does not name the host";
    }
    if (find(t, CertPathBuilderException.class) != null || all.contains("unable to find valid certification path")) {
      return "the server's certificate is not issued by a trusted CA";
    }
    if (find(t, CertPathValidatorException.class) != null) {
      return "the server's certificate chain is not valid";
    }
    if (all.contains("Unsupported or unrecognized SSL message") || all.contains("plaintext connection")
        || all.contains("not an SSL/TLS record")) {
      return "the peer does not speak TLS (a plaintext server on a TLS port?)";
    }
    if (all.contains("No appropriate protocol") || all.contains("no cipher suites in common")
        || all.contains("No negotiable cipher suite")) {
      // The engine refuses before a byte is sent: the settings name only disabled protocols or suites.
      return "no protocol and cipher suite that the settings allow can be used";
    }
    if (all.contains("Received fatal alert")) {
      return "the server refused the handshake";
    }
    if (find(t, EOFException.class) != null || all.contains("terminated the handshake")
        || all.contains("closed") || all.contains("Connection reset")) {
      return "the peer closed the connection during the handshake";
    }
    if (find(t, GeneralSecurityException.class) != null) {
      return "the server's certificate was refused";
    }
    return "the handshake was refused";
  }

  private static String messages(Throwable t) {
    StringBuilder out = new StringBuilder();
    for (Throwable c = t; c != null && out.length() < 400; c = c.getCause() == c ? null : c.getCause()) {
      if (c.getMessage() != null && out.indexOf(c.getMessage()) < 0) {
        if (out.length() > 0) {
          out.append(": ");
        }
        out.append(c.getMessage());
      }
    }
    return out.length() == 0 ? String.valueOf(t) : out.toString();
  }

  /** The first of {@code t}'s cause chain (itself included) that is a {@code type}, or null. */
  static Throwable find(Throwable t, Class<? extends Throwable> type) {
    for (int depth = 0; t != null && depth < 16; t = t.getCause(), depth++) {
      if (type.isInstance(t)) {
        return t;
      }
    }
    return null;
  }
}
