package io.weft.testsupport;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/**
 * An implicit-TLS line server on a loopback port, made from a JDK {@link SSLServerSocket} and a
 * context holding whatever certificate the test wants to present (good, expired, another host's):
 * the scripted TLS peer of the transport tests. Each connection gets a daemon thread that
 * answers each line with the same line, and {@code BIG n} with {@code n} bytes of {@code x} and a
 * CRLF in one write (larger than a TLS record and than a small inbound limit).
 *
 * <p>Lifecycle: {@link #start(SSLContext)}, connect to {@link #address()}, {@link #close()}.
 */
public final class TlsEchoServer implements Closeable {
  private final ServerSocket server;
  private final Thread acceptor;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger handshakes = new AtomicInteger();
  private volatile boolean closed;

  private TlsEchoServer(SSLContext context) throws IOException {
    SSLServerSocket socket = (SSLServerSocket) context.getServerSocketFactory()
        .createServerSocket(0, 1000, InetAddress.getLoopbackAddress());
    this.server = socket;
    this.acceptor = new Thread(this::acceptLoop, "tls-echo-" + socket.getLocalPort());
    this.acceptor.setDaemon(true);
  }

  /** Binds a loopback port and starts accepting; {@code context} holds the server's key. */
  public static TlsEchoServer start(SSLContext context) throws IOException {
    TlsEchoServer echo = new TlsEchoServer(context);
    echo.acceptor.start();
    return echo;
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  /** Handshakes that completed, as the server saw them. */
  public int handshakes() {
    return handshakes.get();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket socket = server.accept();
        open.add(socket);
        Thread session = new Thread(() -> serve(socket), "tls-echo-session");
        session.setDaemon(true);
        session.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket socket) {
    try {
      ((SSLSocket) socket).startHandshake();
      handshakes.incrementAndGet();
      BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      OutputStream out = socket.getOutputStream();
      String line;
      while ((line = in.readLine()) != null) {
        byte[] reply;
        if (line.startsWith("BIG ")) {
          reply = new byte[Integer.parseInt(line.substring(4)) + 2];
          Arrays.fill(reply, (byte) 'x');
          reply[reply.length - 2] = '\r';
          reply[reply.length - 1] = '\n';
        } else {
          reply = (line + "\r\n").getBytes(StandardCharsets.UTF_8);
        }
        out.write(reply);
        out.flush();
      }
    } catch (IOException | RuntimeException e) {
      // The client went away or refused the handshake: that session is over.
    } finally {
      try {
        socket.close();
      } catch (IOException ignored) {
        // Closing anyway.
      }
      open.remove(socket);
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException ignored) {
      // Closing anyway.
    }
    for (Socket socket : open) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // Closing anyway.
      }
    }
    try {
      acceptor.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
