package io.weft.protocols.smtp;

import com.icegreen.greenmail.Managers;
import com.icegreen.greenmail.smtp.SmtpServer;
import com.icegreen.greenmail.store.StoredMessage;
import com.icegreen.greenmail.util.ServerSetup;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * GreenMail's own SMTP server, unchanged but for its listen backlog, for the tests at scale.
 *
 * <p>GreenMail binds with Java's default backlog of 50. Hundreds of sessions connecting at once
 * overflow that queue; Linux then drops the handshake's last ACK and the server retransmits its
 * SYN-ACK only after 1, 2, 4, 8 s, so a session sits waiting for its greeting past any sane read
 * timeout although GreenMail (a thread per connection) would serve it at once. {@link #begin()}
 * binds with a backlog as deep as the burst, which removes that artefact of the listener, not of
 * the server; {@link #stock()} keeps GreenMail's own listener (backlog 50), for the test of a first
 * run against a server as it ships (StockServerFirstRunTest).
 *
 * <p>Either way it notes when its accept loop took each connection ({@link #acceptStamps()}),
 * just before GreenMail starts the connection's handler (which sends the greeting).
 *
 * <p>Lifecycle: {@link #begin()} or {@link #stock()} starts it on a free loopback port;
 * {@link #stopService()} stops it.
 */
final class BurstReadySmtpServer extends SmtpServer {
  private static final int BACKLOG = 4096;
  private static final long START_WITHIN_MILLIS = 10_000;

  private final Managers store;
  /** 0 for GreenMail's own listener. */
  private final int backlog;
  /** When each connection was accepted (System.nanoTime), in order; guarded by itself. */
  private final List<Long> accepts = new ArrayList<>();

  private BurstReadySmtpServer(Managers managers, int backlog) {
    super(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP), managers);
    this.store = managers;
    this.backlog = backlog;
  }

  /** Starts a server with a backlog of 4,096 on a free loopback port and waits until it accepts connections. */
  static BurstReadySmtpServer begin() throws InterruptedException {
    return begin(BACKLOG);
  }

  /** Starts GreenMail's SMTP server as it ships (its own listener: Java's default backlog of 50). */
  static BurstReadySmtpServer stock() throws InterruptedException {
    return begin(0);
  }

  private static BurstReadySmtpServer begin(int backlog) throws InterruptedException {
    BurstReadySmtpServer server = new BurstReadySmtpServer(new Managers(), backlog);
    server.startService();
    if (!server.waitTillRunning(START_WITHIN_MILLIS)) {
      server.stopService();
      throw new IllegalStateException("GreenMail SMTP did not start within " + START_WITHIN_MILLIS + " ms");
    }
    return server;
  }

  /** Called by the accept loop with each connection it has just taken, before its handler starts. */
  @Override
  protected void handleClientSocket(Socket socket) throws SocketException {
    long now = System.nanoTime();
    synchronized (accepts) {
      accepts.add(now);
    }
    super.handleClientSocket(socket);
  }

  /** When each connection so far was accepted, on System.nanoTime, in order. */
  long[] acceptStamps() {
    synchronized (accepts) {
      return accepts.stream().mapToLong(Long::longValue).toArray();
    }
  }

  @Override
  protected ServerSocket openServerSocket() throws IOException {
    if (backlog == 0) {
      return super.openServerSocket();
    }
    ServerSocket socket = new ServerSocket();
    try {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(bindTo, setup.getPort()), backlog);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    setup = setup.port(socket.getLocalPort());
    return socket;
  }

  InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), getPort());
  }

  /**
   * Waits until at least {@code count} messages are stored (bounded by {@code timeoutMillis}),
   * and returns what is stored then.
   */
  List<MimeMessage> awaitMessages(int count, long timeoutMillis) throws InterruptedException {
    // GreenMail's own latch: counted down as each message is stored, less those already there.
    store.getSmtpManager().createAndAddNewWaitObject(count).await(timeoutMillis, TimeUnit.MILLISECONDS);
    List<MimeMessage> messages = new ArrayList<>();
    for (StoredMessage m : store.getImapHostManager().getAllMessages()) {
      messages.add(m.getMimeMessage());
    }
    return messages;
  }
}
