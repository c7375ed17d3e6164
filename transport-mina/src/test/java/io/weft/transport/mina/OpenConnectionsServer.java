package io.weft.transport.mina;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A loopback line-echo server on one thread that counts, as it accepts each connection, how many
 * connections are open: connected, and no end of stream read from them. Before it counts, it
 * reads every connection it holds, so a client's close that reached this host before the new
 * connection did is seen as closed: the count is how many connections the client had not closed
 * when it opened this one. {@link #peakOpen()} is the most it counted.
 *
 * <p>Echoes each LF-terminated line as it arrives. Small lines on loopback: a reply that the
 * socket does not take at once is a failure of the test, reported by {@link #failure()}.
 */
final class OpenConnectionsServer implements AutoCloseable {
  private final ServerSocketChannel server;
  private final Selector selector;
  private final Thread thread;
  private final List<Connection> open = new ArrayList<>();
  private volatile boolean closing;
  private volatile int peakOpen;
  private volatile int accepted;
  private volatile long linesEchoed;
  private volatile Throwable failure;

  private static final class Connection {
    final SocketChannel channel;
    final ByteBuffer in = ByteBuffer.allocate(1024);

    Connection(SocketChannel channel) {
      this.channel = channel;
    }
  }

  OpenConnectionsServer() throws IOException {
    server = ServerSocketChannel.open();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    server.configureBlocking(false);
    selector = Selector.open();
    server.register(selector, SelectionKey.OP_ACCEPT);
    thread = new Thread(this::loop, "open-connections-server");
    thread.setDaemon(true);
    thread.start();
  }

  InetSocketAddress address() throws IOException {
    return (InetSocketAddress) server.getLocalAddress();
  }

  int peakOpen() {
    return peakOpen;
  }

  int accepted() {
    return accepted;
  }

  long linesEchoed() {
    return linesEchoed;
  }

  Throwable failure() {
    return failure;
  }

  /** Starts counting afresh (between runs, with no connection of the last run left open). */
  void resetPeak() {
    peakOpen = 0;
  }

  private void loop() {
    try {
      while (!closing) {
        selector.select();
        selector.selectedKeys().clear();
        serveAll();
        for (SocketChannel ch = server.accept(); ch != null; ch = server.accept()) {
          // Whatever reached this host before this connection: its closes among it.
          serveAll();
          ch.configureBlocking(false);
          ch.register(selector, SelectionKey.OP_READ);
          open.add(new Connection(ch));
          accepted++;
          if (open.size() > peakOpen) {
            peakOpen = open.size();
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      if (!closing) {
        failure = e;
      }
    }
  }

  /** Reads every open connection: echoes its complete lines, forgets it at end of stream. */
  private void serveAll() throws IOException {
    for (Iterator<Connection> i = open.iterator(); i.hasNext();) {
      Connection c = i.next();
      if (!serve(c)) {
        c.channel.close();
        i.remove();
      }
    }
  }

  /** False at the connection's end of stream (or a reset). */
  private boolean serve(Connection c) throws IOException {
    for (;;) {
      int n;
      try {
        n = c.channel.read(c.in);
      } catch (IOException e) {
        return false;
      }
      if (n < 0) {
        return false;
      }
      if (n == 0 && c.in.hasRemaining()) {
        return true;
      }
      c.in.flip();
      int lineStart = 0;
      for (int p = 0; p < c.in.limit(); p++) {
        if (c.in.get(p) == '\n') {
          ByteBuffer reply = c.in.duplicate();
          reply.position(lineStart).limit(p + 1);
          // Counted before the write: once the echo is sent, the client may end its session and
          // the run, and the test read this count, before this thread gets past the write.
          linesEchoed++;
          c.channel.write(reply);
          if (reply.hasRemaining()) {
            throw new IOException("an echo of " + (p + 1 - lineStart) + " bytes did not fit the socket");
          }
          lineStart = p + 1;
        }
      }
      c.in.position(lineStart);
      c.in.compact();
      if (!c.in.hasRemaining()) {
        throw new IOException("a line longer than " + c.in.capacity() + " bytes");
      }
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    closing = true;
    selector.wakeup();
    thread.join();
    for (Connection c : open) {
      c.channel.close();
    }
    selector.close();
    server.close();
  }
}
