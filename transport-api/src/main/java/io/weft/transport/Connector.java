package io.weft.transport;

import java.io.Closeable;
import java.io.IOException;
import java.net.SocketAddress;

/**
 * Opens {@link Transport}s. One connector serves any number of sessions at once; closing it
 * closes every transport it opened that is still open and releases its threads.
 *
 * <p>What addresses are understood depends on the connector: TCP connectors take
 * {@link java.net.InetSocketAddress}, in-VM connectors their own address type.
 */
public interface Connector extends Closeable {

  /**
   * Connects to {@code remote} and returns an open transport with {@code timeout} as its
   * timeouts. The connect itself is one operation: it is bounded by the operation timeout and
   * by the session deadline, which starts now.
   *
   * @throws TransportTimeoutException if the connect takes too long
   * @throws IOException if the connect fails, e.g. {@link java.net.ConnectException}
   * @throws TransportClosedException if this connector is closed
   * @param remote the address to connect to
   * @param timeout the new transport's timeouts; its session deadline starts now
   * @return the connected transport, which the caller closes
   */
  Transport connect(SocketAddress remote, Timeout timeout) throws IOException;

  /** Closes every transport this connector opened and releases its resources. */
  @Override
  void close();
}
