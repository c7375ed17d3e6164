package com.example.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** A loopback echo server for the sample: one thread per connection, bytes back as they come. */
public final class EchoServer {
  private EchoServer() {}

  /** Starts listening on a free loopback port; close the socket to stop accepting. */
  public static ServerSocket start() throws IOException {
    ServerSocket server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      while (!server.isClosed()) {
        try {
          Socket socket = server.accept();
          Thread echo = new Thread(() -> echo(socket), "echo");
          echo.setDaemon(true);
          echo.start();
        } catch (IOException closed) {
          return;
        }
      }
    }, "echo-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
    return server;
  }

  private static void echo(Socket socket) {
    try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
      in.transferTo(out);
    } catch (IOException e) {
      // The client went away.
    }
  }
}
