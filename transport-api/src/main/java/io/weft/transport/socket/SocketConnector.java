package io.weft.transport.socket;

import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link Connector} of {@link SocketTransport}s. It owns no threads; closing it closes the
 * transports it opened that are still open. Made with {@link TlsSettings}, every connect also
 * does a TLS handshake (implicit TLS: HTTPS, SMTPS, a Redis TLS port).
 */
public final class SocketConnector implements Connector {
  private final Set<SocketTransport> open = ConcurrentHashMap.newKeySet();
  private final TlsSettings tls;
  private volatile boolean closed;

  /** A plaintext connector, with no transports open yet. */
  public SocketConnector() {
    this.tls = null;
  }

  /**
   * A connector whose every connect does a TLS handshake as {@code tls} says.
   *
   * @param tls the TLS settings of every connect
   */
  public SocketConnector(TlsSettings tls) {
    this.tls = Objects.requireNonNull(tls, "tls");
  }

  /**
   * The TLS settings every connect uses.
   *
   * @return the TLS settings, or empty for plaintext
   */
  public Optional<TlsSettings> tls() {
    return Optional.ofNullable(tls);
  }

  @Override
  public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
    if (closed) {
      throw new TransportClosedException("connector is closed");
    }
    SocketTransport transport = SocketTransport.open(remote, timeout, this, tls);
    open.add(transport);
    if (closed) {
      transport.close();
      throw new TransportClosedException("connector closed during connect");
    }
    return transport;
  }

  void track(SocketTransport transport) {
    open.add(transport);
  }

  void forget(SocketTransport transport) {
    open.remove(transport);
  }

  @Override
  public void close() {
    closed = true;
    for (SocketTransport transport : new ArrayList<>(open)) {
      transport.close();
    }
  }

  /**
   * Transports opened by this connector and not yet closed.
   *
   * @return a snapshot of the open transports
   */
  public List<Transport> openTransports() {
    return List.copyOf(open);
  }
}
