package io.weft.testsupport;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The accept loop of the thread-per-connection test servers ({@link TlsEchoServer},
 * {@link StartTlsSmtpServer}): one daemon acceptor on a bound loopback {@link ServerSocket}, one
 * daemon thread per accepted connection running the server's {@link Handler}, the connection
 * closed when the handler returns or fails, and every connection still open closed by
 * {@link #close()}.
 *
 * <p>Lifecycle: construct with the bound socket, {@link #start()}, {@link #close()} once.
 */
final class AcceptLoop implements Closeable {
  /** What a server does with one accepted connection; an exception ends that connection only. */
  interface Handler {
    void serve(Socket socket) throws IOException;
  }

  private static final long JOIN_MILLIS = 5_000;

  private final ServerSocket server;
  private final String name;
  private final Handler handler;
  private final Thread acceptor;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  AcceptLoop(ServerSocket server, String name, Handler handler) {
    this.server = server;
    this.name = name;
    this.handler = handler;
    this.acceptor = new Thread(this::acceptAll, name + "-" + server.getLocalPort());
    this.acceptor.setDaemon(true);
  }

  void start() {
    acceptor.start();
  }

  /** Where clients connect: the loopback address and the bound port. */
  InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  private void acceptAll() {
    while (!closed) {
      Socket socket;
      try {
        socket = server.accept();
      } catch (IOException e) {
        return;
      }
      open.add(socket);
      Thread session = new Thread(() -> serve(socket), name + "-session");
      session.setDaemon(true);
      session.start();
    }
  }

  private void serve(Socket socket) {
    try {
      handler.serve(socket);
    } catch (IOException | RuntimeException e) {
      // The client went away or refused the handshake: that connection is over.
    } finally {
      closeQuietly(socket);
      open.remove(socket);
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    for (Socket socket : open) {
      closeQuietly(socket);
    }
    try {
      acceptor.join(JOIN_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // Closing anyway.
    }
  }
}
