package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.TestPki;
import io.weft.transport.BlockedFlusher;
import io.weft.transport.Connector;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.spi.WriteWatchdog;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A TLS flush to a peer that completes the handshake and then never reads: it times out like a
 * plaintext one, on every transport; on {@code SocketTransport} the write watchdog ends the
 * blocked {@code SSLSocket} write, and a close from another thread ends it too.
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = TimeUnit.SECONDS,
    threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
class TlsFlushTimeoutTest {
  private static final Timeout CONNECT_TIMEOUT = Timeout.of(30, TimeUnit.SECONDS);
  private static TestPki pki;
  private static TlsSettings trusting;
  private static NonReadingTlsPeer peer;

  @BeforeAll
  static void startPeer() throws Exception {
    pki = TestPki.create("Weft test CA");
    trusting = TlsSettings.builder().context(pki.clientContext()).build();
    peer = new NonReadingTlsPeer(pki.issue(TestPki.localhost()).serverContext());
  }

  @AfterAll
  static void stopPeer() throws Exception {
    peer.close();
  }

  @ParameterizedTest
  @EnumSource(TlsTransportTest.Kind.class)
  void tlsFlushToPeerThatNeverReadsTimesOutAndClosesTheTransport(TlsTransportTest.Kind kind) throws Exception {
    try (Connector connector = kind.connectors.apply(trusting)) {
      // The connect and handshake get a bound of their own that only a broken transport reaches;
      // the 300 ms under test is the flush's.
      Transport transport = connector.connect(peer.address(), CONNECT_TIMEOUT);
      assertTrue(transport.tlsSession().isPresent());
      transport.timeout(Timeout.of(300, TimeUnit.MILLISECONDS));
      TransportTimeoutException e = assertThrows(TransportTimeoutException.class,
          () -> BlockedFlusher.flushChunks(transport));
      assertTrue(e.getMessage().startsWith("flush timed out after 300 ms"), e.getMessage());
      assertFalse(transport.isOpen());
      assertThrows(TransportClosedException.class, transport::flush);
      assertEquals(0, WriteWatchdog.armedCount(), "watches left armed after the flush returned");
    }
  }

  @Test
  void closeFromAnotherThreadEndsABlockedTlsSocketFlush() throws Exception {
    try (Connector connector = new SocketConnector(trusting)) {
      // No timeout: only the close can end the write (SSLSocket.close alone would wait for it).
      Transport transport = connector.connect(peer.address(), Timeout.NONE);
      BlockedFlusher writer = BlockedFlusher.start(transport, "blocked-tls-flusher");
      writer.awaitBlockedInSocketWrite();
      transport.close();
      Throwable failure = writer.join();
      assertNotNull(failure, "the flushes returned");
      assertEquals(TransportClosedException.class, failure.getClass(), String.valueOf(failure));
      assertTrue(failure.getMessage().endsWith("closed by its owner"), failure.getMessage());
    }
  }

  /**
   * Accepts TLS connections, completes each handshake, and never reads again (a small receive
   * buffer, so that its connections hold little kernel memory). One thread; it closes every
   * connection it accepted when closed.
   */
  static final class NonReadingTlsPeer implements AutoCloseable {
    private final SSLServerSocket server;
    private final Thread thread;
    private final java.util.List<SSLSocket> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final CountDownLatch stopped = new CountDownLatch(1);

    NonReadingTlsPeer(javax.net.ssl.SSLContext context) throws IOException {
      server = (SSLServerSocket) context.getServerSocketFactory().createServerSocket();
      server.setReceiveBufferSize(64 * 1024);
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
      thread = new Thread(this::serve, "non-reading-tls-peer");
      thread.setDaemon(true);
      thread.start();
    }

    InetSocketAddress address() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    private void serve() {
      try {
        while (true) {
          SSLSocket s = (SSLSocket) server.accept();
          accepted.add(s);
          try {
            s.startHandshake();
          } catch (IOException e) {
            s.close();
          }
        }
      } catch (IOException e) {
        // closed
      } finally {
        stopped.countDown();
      }
    }

    @Override
    public void close() throws Exception {
      ((ServerSocket) server).close();
      stopped.await();
      for (SSLSocket s : accepted) {
        if (s.isClosed()) {
          continue;   // its handshake failed, and serve() closed it
        }
        try {
          // The raw close: an SSLSocket's own would try to send close_notify.
          s.setSoLinger(true, 0);
        } catch (SocketException e) {
          // Closed since the check (the client's reset): nothing left to release.
        }
        s.close();
      }
    }
  }
}
