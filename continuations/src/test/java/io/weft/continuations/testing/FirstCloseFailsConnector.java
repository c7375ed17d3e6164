package io.weft.continuations.testing;

import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.spi.ReportsClose;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Real loopback TCP transports ({@link SocketConnector}'s) whose first {@code close()} fails as
 * a close does when the heap runs out part of the way through it: with
 * {@code OutOfMemoryError: Java heap space}, the socket still open and its close not reported.
 * Or, made with {@link #failingWith}, with another exception; or, made with {@link #failingWithError},
 * the first {@code n} closes with another error. Every later close is the socket transport's own.
 */
public final class FirstCloseFailsConnector implements Connector {
  private final SocketConnector sockets = new SocketConnector();
  private final AtomicInteger failedCloses = new AtomicInteger();
  private final Supplier<? extends Throwable> failure;
  private final int failing;
  /** Whether a failing close closes the socket before it throws. */
  private final boolean closesFirst;

  /** Each transport's first close fails for want of heap. */
  public FirstCloseFailsConnector() {
    this(null, 1, false);
  }

  private FirstCloseFailsConnector(Supplier<? extends Throwable> failure, int failing, boolean closesFirst) {
    this.failure = failure;
    this.failing = failing;
    this.closesFirst = closesFirst;
  }

  /** Each transport's first close throws what {@code failure} makes. */
  public static FirstCloseFailsConnector failingWith(Supplier<RuntimeException> failure) {
    return new FirstCloseFailsConnector(failure, 1, false);
  }

  /** Each transport's first close closes the socket, then throws what {@code failure} makes. */
  public static FirstCloseFailsConnector throwingAfterClosing(Supplier<RuntimeException> failure) {
    return new FirstCloseFailsConnector(failure, 1, true);
  }

  /** Each transport's first {@code closes} closes throw what {@code error} makes. */
  public static FirstCloseFailsConnector failingWithError(int closes, Supplier<? extends Error> error) {
    return new FirstCloseFailsConnector(error, closes, false);
  }

  @Override
  public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
    return new FirstCloseFails(sockets.connect(remote, timeout), failedCloses, failure, failing, closesFirst);
  }

  /** How many closes failed so far. */
  public int failedCloses() {
    return failedCloses.get();
  }

  /** How many of the connections are still open. */
  public int openTransports() {
    return sockets.openTransports().size();
  }

  @Override
  public void close() {
    sockets.close();
  }

  private static final class FirstCloseFails extends ForwardingTransport implements ReportsClose {
    private final AtomicInteger failedCloses;
    private final Supplier<? extends Throwable> failure;
    private final int failing;
    private final boolean closesFirst;
    private int failed;

    FirstCloseFails(Transport socket, AtomicInteger failedCloses, Supplier<? extends Throwable> failure, int failing,
        boolean closesFirst) {
      super(socket);
      this.failedCloses = failedCloses;
      this.failure = failure;
      this.failing = failing;
      this.closesFirst = closesFirst;
    }

    @Override
    public synchronized void close() {
      if (failed < failing) {
        failed++;
        failedCloses.incrementAndGet();
        if (closesFirst) {
          socket.close();
        }
        if (failure == null) {
          throw new OutOfMemoryError("Java heap space");
        }
        Throwable t = failure.get();
        if (t instanceof Error) {
          throw (Error) t;
        }
        throw (RuntimeException) t;
      }
      socket.close();
    }

    @Override
    public void whenClosed(Runnable closed) {
      ((ReportsClose) socket).whenClosed(closed);
    }
  }
}
