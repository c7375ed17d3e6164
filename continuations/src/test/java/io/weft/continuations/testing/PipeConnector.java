package io.weft.continuations.testing;

import io.weft.continuations.Suspend;
import io.weft.continuations.SuspendingConnector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.internal.Deadlines;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.javaflow.api.continuable;

/**
 * Connects {@link PipeTransport}s to a {@link PipeEchoServer}. The connect completes on the
 * server's thread, so in continuation mode it suspends like a real one. A library class: its
 * waiting method carries {@code @continuable} and is rewritten by the build step.
 */
public final class PipeConnector implements SuspendingConnector {
  private final Set<PipeTransport> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  @Override
  @continuable
  public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
    if (closed) {
      throw new TransportClosedException("connector is closed");
    }
    if (!(remote instanceof PipeEchoServer.Address)) {
      throw new IllegalArgumentException("not a pipe address: " + remote);
    }
    PipeEchoServer server = ((PipeEchoServer.Address) remote).server;
    long start = System.nanoTime();
    PipeTransport transport = new PipeTransport(server, timeout, start, this);
    long wait = Deadlines.waitNanos(timeout, start, "connect to " + remote);
    if (!Suspend.await(transport::registerConnect, wait)) {
      TransportTimeoutException e = Deadlines.timedOut(timeout, start, wait, "connect to " + remote);
      transport.close();
      throw e;
    }
    open.add(transport);
    return transport;
  }

  void forget(PipeTransport transport) {
    open.remove(transport);
  }

  public int openTransports() {
    return open.size();
  }

  @Override
  public void close() {
    closed = true;
    for (PipeTransport t : new ArrayList<>(open)) {
      t.close();
    }
  }
}
