package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.FullBacklog;
import io.weft.testsupport.TestPki;
import io.weft.testsupport.TlsEchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.mina.testclient.ConnectFromLoopTask;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A connect made by a session running on its MINA processor (a continuation resumed there by its
 * reply) is watched by that processor's own selector and finished on its thread, never by MINA's
 * connector thread; over real loopback TCP, it ends as one made anywhere else does: connected
 * (plaintext and TLS), refused with the same message, a TLS handshake refused with the same
 * message, out of time (its socket closed), or ended by the connector's close (its socket closed).
 * Each case's second connect is made from the loop, which the task reports and the connector's
 * count of such connects confirms.
 *
 * <p>One processor, one session in flight: every session runs on that processor once its first
 * reply has arrived. The sockets of abandoned connects are looked for in the kernel's table
 * ({@code /proc/net/tcp}, {@code tcp6}): a connect still under way is in state SYN_SENT.
 */
class ConnectOnLoopTest {
  private static final String CLIENT = "io.weft.transport.mina.testclient";
  private static final Timeout TIMEOUT = Timeout.of(60, TimeUnit.SECONDS);
  private static final long LONG_MILLIS = TimeUnit.MINUTES.toMillis(5);

  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  /** A listener whose accept queue is full, checked in /proc (skips where that cannot be read). */
  private FullBacklog fullBacklog() throws IOException {
    assumeTrue(FullBacklog.canCheck(), FullBacklog.CANNOT_CHECK);
    return new FullBacklog();
  }

  private <T extends AutoCloseable> T closeLater(T resource) {
    closing.add(resource);
    return resource;
  }

  private SuspendingMinaConnector connector(TlsSettings tls) {
    return connector(tls, 1);
  }

  private SuspendingMinaConnector connector(TlsSettings tls, int processors) {
    SuspendingMinaConnector.Builder b = SuspendingMinaConnector.builder().processorCount(processors);
    if (tls != null) {
      b.tls(tls);
    }
    return closeLater(b.tcp());
  }

  private static RunResult<String> run(SuspendingMinaConnector connector, SocketAddress first, int sessions,
      SocketAddress second, long timeoutMillis, boolean thenOwn) throws Exception {
    try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
        .address(first).maxInFlight(1).timeout(TIMEOUT).instrument(CLIENT).build()) {
      return runner.run(ConnectFromLoopTask.class, sessions, connector, second, timeoutMillis, thenOwn);
    }
  }

  private static List<String> values(RunResult<String> result) {
    List<String> values = new ArrayList<>();
    for (Outcome<String> o : result.outcomes()) {
      assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
      values.add(o.value());
    }
    return values;
  }

  @Test
  void aConnectFromTheLoopConnectsThere() throws Exception {
    OpenConnectionsServer server = closeLater(new OpenConnectionsServer());
    SuspendingMinaConnector connector = connector(null);
    int sessions = 6;
    List<String> values = values(run(connector, server.address(), sessions, server.address(), LONG_MILLIS, true));
    for (int i = 0; i < sessions; i++) {
      assertEquals("loop connected second " + i + ", then third " + i, values.get(i));
    }
    assertTrue(connector.mina().loopConnects() >= sessions,
        "connects made on the processor: " + connector.mina().loopConnects() + ", of " + sessions + " from its loop");
    assertEquals(0, connector.mina().openCount(), "connections left open");
  }

  /**
   * With three processors, the second connection is made on the processor that runs the session
   * and served by it: its echo resumes the session on that processor, where MINA's pool (session
   * id modulo its size) would have put two of three such connections on another one.
   */
  @Test
  void withSeveralProcessorsAConnectFromTheLoopIsServedByThatLoop() throws Exception {
    OpenConnectionsServer server = closeLater(new OpenConnectionsServer());
    SuspendingMinaConnector connector = connector(null, 3);
    int sessions = 9;
    List<String> values = values(run(connector, server.address(), sessions, server.address(), LONG_MILLIS, true));
    for (int i = 0; i < sessions; i++) {
      assertEquals("loop connected second " + i + ", then third " + i, values.get(i));
    }
    assertTrue(connector.mina().loopConnects() >= sessions,
        "connects made on a processor: " + connector.mina().loopConnects() + ", of " + sessions + " from loops");
    assertEquals(0, connector.mina().openCount(), "connections left open");
  }

  @Test
  void aRefusedConnectFromTheLoopSaysWhatOneFromElsewhereSays() throws Exception {
    OpenConnectionsServer server = closeLater(new OpenConnectionsServer());
    SuspendingMinaConnector connector = connector(null);
    InetSocketAddress closed = closedPort();
    String elsewhere = failureOffLoop(connector, closed);
    // docs/errors.md's message, word for word: built only as the connect fails.
    assertEquals("ConnectException: connect to " + closed + " failed: Connection refused", elsewhere);
    List<String> values = values(run(connector, server.address(), 3, closed, LONG_MILLIS, true));
    for (int i = 0; i < 3; i++) {
      assertEquals("loop " + elsewhere + ", then third " + i, values.get(i));
    }
    assertTrue(connector.mina().loopConnects() >= 3, "connects made on the processor: " + connector.mina().loopConnects());
  }

  @Test
  void aConnectFromTheLoopThatRunsOutOfTimeClosesItsSocket() throws Exception {
    OpenConnectionsServer server = closeLater(new OpenConnectionsServer());
    FullBacklog full = closeLater(fullBacklog());
    SuspendingMinaConnector connector = connector(null);
    List<String> values = values(run(connector, server.address(), 2, full.address(), 200, true));
    for (int i = 0; i < 2; i++) {
      String v = values.get(i);
      assertTrue(v.startsWith("loop TransportTimeoutException: connect to " + full.address() + " timed out")
          && v.endsWith(", then third " + i), v);
    }
    assertTrue(connector.mina().loopConnects() >= 2, "connects made on the processor: " + connector.mina().loopConnects());
    // Cancelled, the connect closed its socket: the kernel drops it (the processor's next select
    // releases it), rather than retrying its SYN for minutes.
    awaitTrue(() -> full.synSent() == 0, "the timed-out connects' sockets are still in SYN_SENT");
  }

  /**
   * The same from a thread that is none of the processors: the connect, handed to the processor
   * and under way on its loop, ends at its timeout with the same words, and its socket is closed.
   */
  @Test
  void aConnectHandedToTheLoopThatRunsOutOfTimeClosesItsSocket() throws Exception {
    FullBacklog full = closeLater(fullBacklog());
    SuspendingMinaConnector connector = connector(null);
    for (int i = 0; i < 2; i++) {
      try {
        connector.connect(full.address(), Timeout.of(200, TimeUnit.MILLISECONDS)).close();
        throw new AssertionError("connected to a full backlog");
      } catch (TransportTimeoutException e) {
        assertEquals("connect to " + full.address() + " timed out after 200 ms", e.getMessage());
      }
    }
    assertEquals(2, connector.mina().handedConnects(), "connects handed to the processor");
    awaitTrue(() -> full.synSent() == 0, "the timed-out connects' sockets are still in SYN_SENT");
    assertEquals(0, connector.mina().openCount(), "connections left open");
  }

  @Test
  void closingTheConnectorEndsAConnectFromTheLoopAndClosesItsSocket() throws Exception {
    OpenConnectionsServer server = closeLater(new OpenConnectionsServer());
    FullBacklog full = closeLater(fullBacklog());
    SuspendingMinaConnector connector = connector(null);
    CompletableFuture<RunResult<String>> run = CompletableFuture.supplyAsync(() -> {
      try {
        return run(connector, server.address(), 1, full.address(), LONG_MILLIS, false);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    awaitTrue(() -> full.synSent() == 1, "the connect from the loop never reached SYN_SENT");
    connector.close();
    List<String> values = values(run.get(60, TimeUnit.SECONDS));
    assertEquals("loop TransportClosedException: transport closed during connect to " + full.address()
        + ": connector closed", values.get(0));
    awaitTrue(() -> full.synSent() == 0, "the connect's socket is still in SYN_SENT after the close");
  }

  @Test
  void cancellingTheRunEndsAConnectFromTheLoopAndClosesItsSocket() throws Exception {
    OpenConnectionsServer server = closeLater(new OpenConnectionsServer());
    FullBacklog full = closeLater(fullBacklog());
    SuspendingMinaConnector connector = connector(null);
    RunResult<String> result;
    try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
        .address(server.address()).maxInFlight(1).timeout(TIMEOUT).instrument(CLIENT).build()) {
      CompletableFuture<RunResult<String>> run = CompletableFuture.supplyAsync(() -> {
        try {
          return runner.run(ConnectFromLoopTask.class, 1, connector, full.address(), LONG_MILLIS, false);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      awaitTrue(() -> full.synSent() == 1, "the connect from the loop never reached SYN_SENT");
      // The session ends before its connect does (as at its deadline): the runner's cancel.
      runner.cancel();
      result = run.get(60, TimeUnit.SECONDS);
    }
    Outcome<String> o = result.outcomes().get(0);
    String told = o.status() == Outcome.Status.SUCCEEDED ? o.value() : String.valueOf(o.failure());
    assertTrue(connector.mina().loopConnects() >= 1, "no connect made on the processor; the session: " + told);
    // The connect ended with its session: its socket closed, not left retrying its SYN for minutes.
    awaitTrue(() -> full.synSent() == 0, "the connect's socket is still in SYN_SENT after the run's cancel ("
        + told + ")");
  }

  @Test
  void tlsFromTheLoopConnectsAndFailsAsElsewhere() throws Exception {
    TestPki pki = TestPki.create("Weft test CA");
    TlsSettings trusting = TlsSettings.builder().context(pki.clientContext()).build();
    TlsEchoServer good = TlsEchoServer.start(pki.issue(TestPki.localhost()).serverContext());
    closeLater(good::close);
    TlsEchoServer expired = TlsEchoServer.start(pki.issue(TestPki.expiredLocalhost()).serverContext());
    closeLater(expired::close);
    SuspendingMinaConnector connector = connector(trusting);
    List<String> values = values(run(connector, good.address(), 3, good.address(), LONG_MILLIS, true));
    for (int i = 0; i < 3; i++) {
      assertEquals("loop connected second " + i + ", then third " + i, values.get(i));
    }
    String elsewhere = failureOffLoop(connector, expired.address());
    assertTrue(elsewhere.startsWith("TlsHandshakeException: "), elsewhere);
    values = values(run(connector, good.address(), 2, expired.address(), LONG_MILLIS, true));
    for (int i = 0; i < 2; i++) {
      assertEquals("loop " + elsewhere + ", then third " + i, values.get(i));
    }
    assertTrue(connector.mina().loopConnects() >= 3 + 2, "connects made on the processor: "
        + connector.mina().loopConnects());
  }

  /** The failure of a connect made off the loop (this thread, MINA's connector), as the task words it. */
  private static String failureOffLoop(SuspendingMinaConnector connector, SocketAddress address) {
    try {
      connector.connect(address, TIMEOUT).close();
      throw new AssertionError("connected to " + address);
    } catch (IOException e) {
      return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }

  private static InetSocketAddress closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort());
    }
  }

  /** Waits, a bounded time, for something another thread or the kernel does. */
  private static void awaitTrue(BooleanSupplier condition, String failure) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError(failure + " 30 s later");
      }
      Thread.sleep(10);
    }
  }
}
