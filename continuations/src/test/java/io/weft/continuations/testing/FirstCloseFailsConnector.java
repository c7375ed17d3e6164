package io.weft.continuations.testing;

import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.spi.ReportsClose;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.net.ssl.SSLSession;

/**
 * Real loopback TCP transports ({@link SocketConnector}'s) whose first {@code close()} fails as
 * a close does when the heap runs out part of the way through it: with
 * {@code OutOfMemoryError: Java heap space}, the socket still open and its close not reported.
 * Or, made with {@link #failingWith}, with another error. Every later close is the socket
 * transport's own.
 */
public final class FirstCloseFailsConnector implements Connector {
  private final SocketConnector sockets = new SocketConnector();
  private final AtomicInteger failedCloses = new AtomicInteger();
  private final Supplier<RuntimeException> failure;

  /** Each transport's first close fails for want of heap. */
  public FirstCloseFailsConnector() {
    this(null);
  }

  private FirstCloseFailsConnector(Supplier<RuntimeException> failure) {
    this.failure = failure;
  }

  /** Each transport's first close throws what {@code failure} makes. */
  public static FirstCloseFailsConnector failingWith(Supplier<RuntimeException> failure) {
    return new FirstCloseFailsConnector(failure);
  }

  @Override
  public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
    return new FirstCloseFails(sockets.connect(remote, timeout), failedCloses, failure);
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

  private static final class FirstCloseFails implements Transport, ReportsClose {
    private final Transport socket;
    private final AtomicInteger failedCloses;
    private final Supplier<RuntimeException> failure;
    private boolean failed;

    FirstCloseFails(Transport socket, AtomicInteger failedCloses, Supplier<RuntimeException> failure) {
      this.socket = socket;
      this.failedCloses = failedCloses;
      this.failure = failure;
    }

    @Override
    public synchronized void close() {
      if (!failed) {
        failed = true;
        failedCloses.incrementAndGet();
        if (failure != null) {
          throw failure.get();
        }
        throw new OutOfMemoryError("Java heap space");
      }
      socket.close();
    }

    @Override
    public void whenClosed(Runnable closed) {
      ((ReportsClose) socket).whenClosed(closed);
    }

    @Override public String readLine(int limit) throws IOException { return socket.readLine(limit); }
    @Override public String readLine(int limit, Charset charset) throws IOException {
      return socket.readLine(limit, charset);
    }
    @Override public String readLineStrict(int limit) throws IOException { return socket.readLineStrict(limit); }
    @Override public String readLineStrict(int limit, Charset charset) throws IOException {
      return socket.readLineStrict(limit, charset);
    }
    @Override public void readFully(byte[] dst, int offset, int length) throws IOException {
      socket.readFully(dst, offset, length);
    }
    @Override public byte[] readBytes(int byteCount) throws IOException { return socket.readBytes(byteCount); }
    @Override public int read(byte[] dst, int offset, int length) throws IOException {
      return socket.read(dst, offset, length);
    }
    @Override public void write(byte[] src, int offset, int length) throws IOException {
      socket.write(src, offset, length);
    }
    @Override public void write(byte[] src) throws IOException { socket.write(src); }
    @Override public void write(String text) throws IOException { socket.write(text); }
    @Override public void write(String text, Charset charset) throws IOException { socket.write(text, charset); }
    @Override public void writeLine(String line) throws IOException { socket.writeLine(line); }
    @Override public void flush() throws IOException { socket.flush(); }
    @Override public void startTls(TlsSettings settings) throws IOException { socket.startTls(settings); }
    @Override public Optional<SSLSession> tlsSession() { return socket.tlsSession(); }
    @Override public Timeout timeout() { return socket.timeout(); }
    @Override public void timeout(Timeout timeout) { socket.timeout(timeout); }
    @Override public boolean isOpen() { return socket.isOpen(); }
  }
}
