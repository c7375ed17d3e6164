package io.weft.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback server that answers every line it receives with {@code ?garbage}, which no protocol
 * of Weft's accepts, and keeps the connection open: a client has to notice and go away itself.
 * A thread per connection, daemon; {@link #close()} stops accepting and closes every socket.
 */
final class GarbageServer implements AutoCloseable {
  private final ServerSocket server;
  private final AtomicInteger accepted = new AtomicInteger();
  private final java.util.List<Socket> sockets = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

  GarbageServer() throws IOException {
    server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    Thread t = new Thread(this::accept, "garbage-server");
    t.setDaemon(true);
    t.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** Connections accepted so far. */
  int accepted() {
    return accepted.get();
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        return;
      }
      accepted.incrementAndGet();
      sockets.add(s);
      Thread t = new Thread(() -> answer(s), "garbage-" + accepted.get());
      t.setDaemon(true);
      t.start();
    }
  }

  private static void answer(Socket s) {
    try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
      OutputStream out = s.getOutputStream();
      while (in.readLine() != null) {
        out.write("?garbage\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    } catch (IOException e) {
      // The client went away: what it should do.
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    synchronized (sockets) {
      for (Socket s : sockets) {
        s.close();
      }
    }
  }
}
