package io.weft.transport;

import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a client speaks TLS: the {@link SSLContext} that holds its trust (and any client key), the
 * host name it expects, and what it leaves to the JDK. Give it to a connector for implicit TLS
 * (every connection starts with a handshake: HTTPS, SMTPS on 465, a Redis TLS port) or to
 * {@link Transport#startTls(TlsSettings)} to upgrade a plaintext connection (SMTP's STARTTLS).
 *
 * <p>Safe by default: the JDK's default context ({@link SSLContext#getDefault()}, the JDK's
 * trust store), the server name sent in SNI, and the server's certificate checked against the
 * host name with endpoint identification {@code "HTTPS"} (RFC 2818: subject alternative names,
 * wildcards in the leftmost label). The host name is the one the transport was connected with
 * ({@link java.net.InetSocketAddress#getHostString()}, never a reverse lookup), unless
 * {@link Builder#serverName(String)} names it: use that when connecting by IP address to a
 * server whose certificate names a host. Protocols and cipher suites are the JDK's unless set.
 *
 * <p>Turning verification off takes {@link Builder#insecureTrustAllCertificatesAndHostnames()},
 * which logs a warning each time settings are built with it; no other option weakens it.
 *
 * <p>The handshake is one wait: it is bounded by {@link Builder#handshakeTimeout} when set,
 * otherwise by the transport's operation timeout, and always by the session deadline (see
 * {@link Timeout}). Instances are immutable and may be shared by any number of connectors and
 * transports.
 */
public final class TlsSettings {
  private static final Logger LOG = LoggerFactory.getLogger(TlsSettings.class);

  private final SSLContext context;
  private final String serverName;
  private final boolean verifyHostname;
  private final boolean trustAll;
  private final List<String> protocols;
  private final List<String> cipherSuites;
  private final long handshakeTimeoutNanos;

  private TlsSettings(Builder builder) {
    this.context = builder.context;
    this.serverName = builder.serverName;
    this.verifyHostname = !builder.trustAll;
    this.trustAll = builder.trustAll;
    this.protocols = builder.protocols;
    this.cipherSuites = builder.cipherSuites;
    this.handshakeTimeoutNanos = builder.handshakeTimeoutNanos;
  }

  /**
   * The safe defaults described above.
   *
   * @return settings with the JDK's default context, SNI and host-name verification on
   */
  public static TlsSettings defaults() {
    return builder().build();
  }

  /**
   * Settings to start from the safe defaults.
   *
   * @return a new builder holding the defaults
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The context engines and sockets are made from: the one set, or the JDK's default.
   *
   * @return the context
   * @throws IllegalStateException if the JDK has no default context (a broken installation)
   */
  public SSLContext context() {
    if (context != null) {
      return context;
    }
    try {
      return SSLContext.getDefault();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no default SSLContext", e);
    }
  }

  /**
   * The host name to send in SNI and to verify, when set; otherwise the connected host's is used.
   *
   * @return the host name set, or empty
   */
  public Optional<String> serverName() {
    return Optional.ofNullable(serverName);
  }

  /**
   * Whether the server's host name is verified.
   *
   * @return true unless built with {@link Builder#insecureTrustAllCertificatesAndHostnames()}
   */
  public boolean verifiesHostname() {
    return verifyHostname;
  }

  /**
   * Whether every certificate is trusted (insecure).
   *
   * @return true when built with {@link Builder#insecureTrustAllCertificatesAndHostnames()}
   */
  public boolean trustsAllCertificates() {
    return trustAll;
  }

  /**
   * The protocols to enable.
   *
   * @return the protocols ({@code "TLSv1.3"}, ...), or empty for the JDK's choice
   */
  public List<String> protocols() {
    return protocols;
  }

  /**
   * The cipher suites to enable.
   *
   * @return the cipher suites, or empty for the JDK's choice
   */
  public List<String> cipherSuites() {
    return cipherSuites;
  }

  /**
   * The handshake's own timeout.
   *
   * @return the timeout in nanoseconds, or 0 to use the operation timeout
   */
  public long handshakeTimeoutNanos() {
    return handshakeTimeoutNanos;
  }

  @Override
  public String toString() {
    return "TlsSettings{" + (context == null ? "default context" : context.getProtocol() + " context")
        + (serverName == null ? "" : ", serverName=" + serverName)
        + (trustAll ? ", INSECURE: trusts every certificate and host name" : ", verifies host name")
        + (protocols.isEmpty() ? "" : ", protocols=" + protocols)
        + (cipherSuites.isEmpty() ? "" : ", cipherSuites=" + cipherSuites)
        + (handshakeTimeoutNanos == 0L ? "" : ", handshakeTimeout=" + Timeout.describe(handshakeTimeoutNanos))
        + "}";
  }

  /** Builds {@link TlsSettings}; not thread-safe, reusable. */
  public static final class Builder {
    private SSLContext context;
    private String serverName;
    private boolean trustAll;
    private List<String> protocols = List.of();
    private List<String> cipherSuites = List.of();
    private long handshakeTimeoutNanos;

    private Builder() {}

    /**
     * The context to make engines and sockets from; default {@link SSLContext#getDefault()}.
     *
     * @param context the context, holding the trust store that verifies servers
     * @return this builder
     */
    public Builder context(SSLContext context) {
      this.context = Objects.requireNonNull(context, "context");
      return this;
    }

    /**
     * The host name the server's certificate must name, also sent in SNI; by default the host
     * the transport connected to. Needed when connecting by IP address.
     *
     * @param hostName the expected host name
     * @return this builder
     * @throws IllegalArgumentException if empty or not a plausible host name
     */
    public Builder serverName(String hostName) {
      Objects.requireNonNull(hostName, "hostName");
      if (hostName.isEmpty() || hostName.chars().anyMatch(c -> c <= ' ' || c == '/' || c == 0x7f)) {
        throw new IllegalArgumentException("bad host name: " + ProtocolViolationException.quote(hostName));
      }
      this.serverName = hostName;
      return this;
    }

    /**
     * The protocols to enable; default: the JDK's.
     *
     * @param protocols protocol names, e.g. {@code "TLSv1.3"}
     * @return this builder
     */
    public Builder protocols(String... protocols) {
      this.protocols = copy("protocols", protocols);
      return this;
    }

    /**
     * The cipher suites to enable; default: the JDK's.
     *
     * @param cipherSuites cipher suite names as the JDK spells them
     * @return this builder
     */
    public Builder cipherSuites(String... cipherSuites) {
      this.cipherSuites = copy("cipherSuites", cipherSuites);
      return this;
    }

    /**
     * Bounds the handshake by {@code duration} instead of the operation timeout; still cut to
     * the session deadline. 0 (the default) means the operation timeout.
     *
     * @param duration the longest handshake, 0 for the operation timeout
     * @param unit the unit of {@code duration}
     * @return this builder
     */
    public Builder handshakeTimeout(long duration, TimeUnit unit) {
      if (duration < 0L) {
        throw new IllegalArgumentException("duration < 0: " + duration);
      }
      this.handshakeTimeoutNanos = Objects.requireNonNull(unit, "unit").toNanos(duration);
      return this;
    }

    /**
     * INSECURE: trusts every certificate, expired, self-signed or issued to any host, and
     * checks no host name. Anyone on the path can then read and change the traffic. For talking
     * to a test server whose certificate cannot be had; never for production. Replaces any
     * {@link #context(SSLContext)}. Logged as a warning when built.
     *
     * @return this builder
     */
    public Builder insecureTrustAllCertificatesAndHostnames() {
      this.trustAll = true;
      return this;
    }

    /**
     * The settings as built so far.
     *
     * @return immutable settings
     */
    public TlsSettings build() {
      if (trustAll) {
        LOG.warn("TLS settings built with insecureTrustAllCertificatesAndHostnames():"
            + " certificates and host names will NOT be verified");
        context = TrustAll.context();
      }
      return new TlsSettings(this);
    }

    private static List<String> copy(String what, String[] values) {
      Objects.requireNonNull(values, what);
      if (values.length == 0) {
        throw new IllegalArgumentException(what + " is empty; leave it unset for the JDK's choice");
      }
      for (String v : values) {
        if (v == null || v.isEmpty()) {
          throw new IllegalArgumentException(what + " has an empty entry: " + Arrays.toString(values));
        }
      }
      return List.of(values);
    }
  }
}
