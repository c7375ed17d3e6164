package io.weft.continuations.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A small loopback TCP echo server, a thread per connection, with the same script as
 * {@link PipeEchoServer} (SILENT lines unanswered, QUIT closes). For the blocking modes over
 * {@code SocketTransport}; not for thousands of connections.
 */
public final class LoopbackEchoServer implements AutoCloseable {
  private final ServerSocket server;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;

  public LoopbackEchoServer() throws IOException {
    server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::acceptLoop, "loopback-echo-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public SocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        open.add(socket);
        Thread t = new Thread(() -> serve(socket), "loopback-echo");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      OutputStream out = socket.getOutputStream();
      String line;
      while ((line = in.readLine()) != null) {
        if (line.startsWith("SILENT")) {
          continue;
        }
        out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        if (line.startsWith("QUIT")) {
          return;
        }
      }
    } catch (IOException e) {
      // The client went away: nothing to do.
    } finally {
      open.remove(socket);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      s.close();
    }
  }
}
