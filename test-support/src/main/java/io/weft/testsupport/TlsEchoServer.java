package io.weft.testsupport;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
  private final AcceptLoop loop;
  private final AtomicInteger handshakes = new AtomicInteger();

  private TlsEchoServer(SSLContext context, boolean needClientAuth) throws IOException {
    SSLServerSocket socket = (SSLServerSocket) context.getServerSocketFactory()
        .createServerSocket(0, 1000, InetAddress.getLoopbackAddress());
    socket.setNeedClientAuth(needClientAuth);
    this.loop = new AcceptLoop(socket, "tls-echo", this::serve);
  }

  /** Binds a loopback port and starts accepting; {@code context} holds the server's key. */
  public static TlsEchoServer start(SSLContext context) throws IOException {
    TlsEchoServer echo = new TlsEchoServer(context, false);
    echo.loop.start();
    return echo;
  }

  /**
   * As {@link #start}, with a server that requires a client certificate: over TLS 1.3 a client
   * without one completes its side of the handshake and then receives the server's fatal alert.
   */
  public static TlsEchoServer startRequiringClientCertificates(SSLContext context) throws IOException {
    TlsEchoServer echo = new TlsEchoServer(context, true);
    echo.loop.start();
    return echo;
  }

  public InetSocketAddress address() {
    return loop.address();
  }

  /** Handshakes that completed, as the server saw them. */
  public int handshakes() {
    return handshakes.get();
  }

  private void serve(Socket socket) throws IOException {
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
  }

  @Override
  public void close() {
    loop.close();
  }
}
