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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A small SMTP server on a loopback port that offers STARTTLS (RFC 3207) and upgrades with a JDK
 * {@link SSLSocket} over the accepted socket, for the STARTTLS tests (GreenMail offers only
 * implicit TLS). One daemon thread per connection; it accepts any sender and recipient and
 * records each message's body with whether it came over TLS.
 *
 * <p>Before TLS, {@code EHLO} advertises {@code STARTTLS}; after it, not, and a mail before TLS
 * is refused with {@code 530 Must issue a STARTTLS command first}. With
 * {@link #injectAfterStartTls()} it plays the attacker of CVE-2011-0411: its reply to STARTTLS
 * is {@code "220 ready\r\n250 injected\r\n"} in one write, then it tries the handshake (or, with
 * {@link #injectAndCloseAfterStartTls()}, closes the connection).
 *
 * <p>Lifecycle: {@link #start(SSLContext)}, connect to {@link #address()}, {@link #close()}.
 */
public final class StartTlsSmtpServer implements Closeable {
  private final SSLContext context;
  private final AcceptLoop loop;
  private final List<String> tlsMessages = new CopyOnWriteArrayList<>();
  private final AtomicInteger handshakes = new AtomicInteger();
  private volatile boolean inject;
  private volatile boolean closeAfterInjection;

  private StartTlsSmtpServer(SSLContext context) throws IOException {
    this.context = context;
    this.loop = new AcceptLoop(new ServerSocket(0, 1000, InetAddress.getLoopbackAddress()), "starttls-smtp",
        this::serve);
  }

  /** Binds a loopback port and starts accepting; {@code context} holds the server's key. */
  public static StartTlsSmtpServer start(SSLContext context) throws IOException {
    StartTlsSmtpServer smtp = new StartTlsSmtpServer(context);
    smtp.loop.start();
    return smtp;
  }

  /** From now on, answer STARTTLS with the go-ahead and an injected reply in the same write. */
  public StartTlsSmtpServer injectAfterStartTls() {
    inject = true;
    return this;
  }

  /**
   * From now on, answer STARTTLS with the go-ahead and an injected reply in the same write, and
   * then close the connection instead of trying the handshake.
   */
  public StartTlsSmtpServer injectAndCloseAfterStartTls() {
    inject = true;
    closeAfterInjection = true;
    return this;
  }

  public InetSocketAddress address() {
    return loop.address();
  }

  /** The bodies of the messages received over TLS, in arrival order. */
  public List<String> tlsMessages() {
    return List.copyOf(tlsMessages);
  }

  /** Handshakes that completed. */
  public int handshakes() {
    return handshakes.get();
  }

  private void serve(Socket plain) throws IOException {
    Socket socket = plain;
    boolean tls = false;
    try {
      BufferedReader in = reader(socket);
      OutputStream out = socket.getOutputStream();
      send(out, "220 localhost ESMTP weft-test\r\n");
      StringBuilder data = null;
      String line;
      while ((line = in.readLine()) != null) {
        if (data != null) {
          if (line.equals(".")) {
            if (tls) {
              tlsMessages.add(data.toString());
            }
            data = null;
            send(out, "250 2.0.0 queued\r\n");
          } else {
            data.append(line.startsWith("..") ? line.substring(1) : line).append("\r\n");
          }
          continue;
        }
        String verb = line.length() >= 4 ? line.substring(0, 4).toUpperCase() : line.toUpperCase();
        switch (verb) {
          case "EHLO":
            send(out, tls ? "250-localhost\r\n250 8BITMIME\r\n" : "250-localhost\r\n250-8BITMIME\r\n250 STARTTLS\r\n");
            break;
          case "STAR":
            if (tls) {
              send(out, "503 5.5.1 TLS already active\r\n");
              break;
            }
            if (inject) {
              send(out, "220 ready\r\n250 injected\r\n");
              if (closeAfterInjection) {
                return;
              }
            } else {
              send(out, "220 2.0.0 Ready to start TLS\r\n");
            }
            SSLSocket secure = (SSLSocket) context.getSocketFactory().createSocket(socket, null, socket.getPort(), true);
            secure.setUseClientMode(false);
            secure.startHandshake();
            handshakes.incrementAndGet();
            socket = secure;
            tls = true;
            in = reader(socket);
            out = socket.getOutputStream();
            break;
          case "MAIL":
            send(out, tls ? "250 2.1.0 ok\r\n" : "530 5.7.0 Must issue a STARTTLS command first\r\n");
            break;
          case "RCPT":
            send(out, "250 2.1.5 ok\r\n");
            break;
          case "DATA":
            data = new StringBuilder();
            send(out, "354 go ahead\r\n");
            break;
          case "QUIT":
            send(out, "221 2.0.0 bye\r\n");
            return;
          default:
            send(out, "500 5.5.2 unknown command\r\n");
        }
      }
    } finally {
      if (socket != plain) {
        // The TLS socket's close says close_notify; the loop then closes the plain one under it.
        socket.close();
      }
    }
  }

  private static BufferedReader reader(Socket socket) throws IOException {
    return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
  }

  private static void send(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  @Override
  public void close() {
    loop.close();
  }
}
