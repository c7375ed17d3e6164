package io.weft.continuations.testing;

import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingConnector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.spi.Deadlines;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.javaflow.api.continuable;

/**
 * Connects {@link PipeTransport}s to a {@link PipeEchoServer}. The connect completes on the
 * server's thread, so in continuation mode it suspends like a real one. A library class: its
 * waiting method carries {@code @continuable} and is rewritten by the build step.
 */
public final class PipeConnector implements SuspendingConnector {
  private final Set<PipeTransport> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger suspends = new AtomicInteger();
  private final AtomicInteger peakOpen = new AtomicInteger();
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
    peakOpen.accumulateAndGet(open.size(), Math::max);
    return transport;
  }

  void forget(PipeTransport transport) {
    open.remove(transport);
  }

  public int openTransports() {
    return open.size();
  }

  /** The most transports open at once. */
  public int peakOpenTransports() {
    return peakOpen.get();
  }

  void suspended() {
    suspends.incrementAndGet();
  }

  /** Reads that found nothing buffered and suspended their continuation to wait. */
  public int suspends() {
    return suspends.get();
  }

  @Override
  public void close() {
    closed = true;
    for (PipeTransport t : new ArrayList<>(open)) {
      t.close();
    }
  }
}
