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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * GreenMail's own SMTP server, unchanged but for its listen backlog, for the test at scale.
 *
 * <p>GreenMail binds with Java's default backlog of 50. Hundreds of sessions connecting at once
 * overflow that queue; Linux then drops the handshake's last ACK and the server retransmits its
 * SYN-ACK only after 1, 2, 4, 8 s, so a session sits waiting for its greeting past any sane read
 * timeout although GreenMail (a thread per connection) would serve it at once. A backlog as deep
 * as the burst removes that artefact of the listener, not of the server.
 *
 * <p>Lifecycle: {@link #begin()} starts it on a free loopback port; {@link #stopService()} stops it.
 */
final class BurstReadySmtpServer extends SmtpServer {
  private static final int BACKLOG = 4096;
  private static final long START_WITHIN_MILLIS = 10_000;

  private final Managers store;

  private BurstReadySmtpServer(Managers managers) {
    super(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP), managers);
    this.store = managers;
  }

  /** Starts a server on a free loopback port and waits until it accepts connections. */
  static BurstReadySmtpServer begin() throws InterruptedException {
    BurstReadySmtpServer server = new BurstReadySmtpServer(new Managers());
    server.startService();
    if (!server.waitTillRunning(START_WITHIN_MILLIS)) {
      server.stopService();
      throw new IllegalStateException("GreenMail SMTP did not start within " + START_WITHIN_MILLIS + " ms");
    }
    return server;
  }

  @Override
  protected ServerSocket openServerSocket() throws IOException {
    ServerSocket socket = new ServerSocket();
    try {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(bindTo, setup.getPort()), BACKLOG);
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
