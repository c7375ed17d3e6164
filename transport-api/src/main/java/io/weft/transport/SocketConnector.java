package io.weft.transport;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link Connector} of {@link SocketTransport}s. It owns no threads; closing it closes the
 * transports it opened that are still open.
 */
public final class SocketConnector implements Connector {
  private final Set<SocketTransport> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /** A connector with no transports open yet. */
  public SocketConnector() {}

  @Override
  public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
    if (closed) {
      throw new TransportClosedException("connector is closed");
    }
    SocketTransport transport = SocketTransport.open(remote, timeout, this);
    open.add(transport);
    if (closed) {
      transport.close();
      throw new TransportClosedException("connector closed during connect");
    }
    return transport;
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
