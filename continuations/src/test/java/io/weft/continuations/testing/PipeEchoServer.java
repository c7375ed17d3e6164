package io.weft.continuations.testing;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The peer half of the in-memory {@link PipeTransport} (not a socket server: the one socket and
 * MINA echo server is test-support's EchoServer, which the runner tests use over TCP; this module
 * cannot use the suspending MINA transport, which depends on it). On its own thread it accepts
 * pipe connections and answers each line it is sent with the same line after a delay. A line {@code SILENT...} gets no answer (for
 * timeouts); a line {@code QUIT} is answered, then the server closes the connection.
 *
 * <p>{@link #answeringWaitingReaders()} makes one that holds each answer until a read of the client
 * waits for it (its wake-up registered, in continuation mode its continuation suspending): every
 * read of an answer then suspends, whatever the load, with no delay to beat.
 */
public final class PipeEchoServer implements AutoCloseable {
  private final ScheduledThreadPoolExecutor executor;
  private final long delayNanos;
  private final boolean afterReaderWaits;
  private final Address address = new Address(this);

  public PipeEchoServer(long delay, TimeUnit unit) {
    this(delay, unit, false);
  }

  /** A server that answers at once, but each answer only once a read of the client waits for it. */
  public static PipeEchoServer answeringWaitingReaders() {
    return new PipeEchoServer(0, TimeUnit.NANOSECONDS, true);
  }

  private PipeEchoServer(long delay, TimeUnit unit, boolean afterReaderWaits) {
    this.afterReaderWaits = afterReaderWaits;
    this.delayNanos = unit.toNanos(delay);
    executor = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "pipe-echo-server");
      t.setDaemon(true);
      return t;
    });
  }

  public SocketAddress address() {
    return address;
  }

  void accept(PipeTransport client, Runnable accepted) {
    executor.schedule(accepted, delayNanos, TimeUnit.NANOSECONDS);
  }

  void received(PipeTransport client, byte[] bytes) {
    executor.schedule(() -> answer(client, bytes), delayNanos, TimeUnit.NANOSECONDS);
  }

  /** Runs on the server thread only, so a connection's partial line needs no lock. */
  private void answer(PipeTransport client, byte[] bytes) {
    StringBuilder partial = client.serverPartial;
    partial.append(new String(bytes, StandardCharsets.UTF_8));
    int lf;
    while ((lf = partial.indexOf("\n")) >= 0) {
      String line = partial.substring(0, lf + 1);
      partial.delete(0, lf + 1);
      if (line.startsWith("SILENT")) {
        continue;
      }
      if (afterReaderWaits) {
        client.deliverOnceReaderWaits(line.getBytes(StandardCharsets.UTF_8));
      } else {
        client.deliver(line.getBytes(StandardCharsets.UTF_8));
      }
      if (line.startsWith("QUIT")) {
        client.peerClosed();
      }
    }
  }

  /** Runs {@code task} on the server thread, after what it has queued. */
  void later(Runnable task) {
    executor.execute(task);
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }

  /** Where a {@link PipeConnector} connects to. */
  public static final class Address extends SocketAddress {
    private static final long serialVersionUID = 1L;
    final transient PipeEchoServer server;

    Address(PipeEchoServer server) {
      this.server = server;
    }

    @Override
    public String toString() {
      return "pipe:echo";
    }
  }
}
