package io.weft.transport.mina;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.BlockingOperationException;
import io.weft.transport.Peer;
import io.weft.transport.SocketPeer;
import io.weft.transport.Timeout;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.mina.internal.SessionState;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What SuspendingMinaTransport does beyond the contract, on plain threads (where its waits
 * block): the fast path, the spin before suspending, timeouts that stay exact through the spin
 * and the re-assert slices, bounded input on TCP, and the I/O-thread refusal. Continuation mode
 * itself is tested with the line tester in the protocols module.
 */
class SuspendingMinaTransportBehaviourTest {
  private static final Duration PEER_WAIT = Duration.ofSeconds(10);
  private static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);

  @Test
  void overThePipeAFlushAndAReadOfBufferedDataNeverWait() throws Exception {
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.vmPipe(); VmPipePeer peer = new VmPipePeer()) {
      SuspendingMinaTransport transport = connector.connect(peer.address(), TEN_SECONDS);
      Peer.Connection server = peer.accept(PEER_WAIT);
      long before = connector.immediate();
      transport.writeLine("ping");
      transport.flush();
      assertEquals("ping", server.readLine(PEER_WAIT));
      server.send("pong\r\n".getBytes(UTF_8));
      assertEquals("pong", transport.readLineStrict(100));
      assertEquals(before + 2, connector.immediate(), "the flush and the read");
      assertEquals(0, connector.suspends());

      CompletableFuture<Void> late = sendWhenWaiting(transport, server, "late\n");
      assertEquals("late", transport.readLineStrict(100));
      late.get(10, TimeUnit.SECONDS);
      assertEquals(1, connector.suspends(), "a read that found nothing waited once");
      server.close();
    }
  }

  @Test
  void aReplyWithinTheSpinIsCaughtWithoutSuspending() throws Exception {
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.builder()
            .spinBeforeSuspend(2, TimeUnit.SECONDS).vmPipe();
        VmPipePeer peer = new VmPipePeer()) {
      assertEquals(TimeUnit.SECONDS.toNanos(2), connector.spinBeforeSuspendNanos());
      SuspendingMinaTransport transport = connector.connect(peer.address(), TEN_SECONDS);
      Peer.Connection server = peer.accept(PEER_WAIT);
      CompletableFuture<Void> late = sendWhenWaiting(transport, server, "soon\n");
      assertEquals("soon", transport.readLineStrict(100));
      late.get(10, TimeUnit.SECONDS);
      assertEquals(1, connector.spun());
      assertEquals(0, connector.suspends());
      server.close();
    }
  }

  @Test
  void theSpinCountsAgainstTheReadTimeout() throws Exception {
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.builder()
            .spinBeforeSuspend(150, TimeUnit.MILLISECONDS).vmPipe();
        VmPipePeer peer = new VmPipePeer()) {
      SuspendingMinaTransport transport = connector.connect(peer.address(), Timeout.of(300, TimeUnit.MILLISECONDS));
      peer.accept(PEER_WAIT);
      assertTimesOutNoSooner(transport, 300);
      assertEquals(1, connector.suspends(), "spun, then suspended for the rest");
    }
  }

  @Test
  void spinBeforeSuspendRejectsANegativeTime() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SuspendingMinaConnector.builder().spinBeforeSuspend(-1, TimeUnit.MICROSECONDS));
    assertEquals("time < 0: -1", e.getMessage());
  }

  @Test
  void tcpBackpressureHoldsThePeerBackThenReadsResumeAndTimeoutsStayExact() throws Exception {
    int limit = 16 * 1024;
    int total = 4 * 1024 * 1024;
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.builder().inboundBufferLimit(limit).tcp();
        SocketPeer peer = new SocketPeer()) {
      SuspendingMinaTransport transport = connector.connect(peer.address(), TEN_SECONDS);
      Peer.Connection server = peer.accept(PEER_WAIT);
      SessionState state = transport.state();
      byte[] chunk = new byte[8192];
      CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
        try {
          for (int offset = 0; offset < total; offset += chunk.length) {
            server.send(chunk);
          }
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      MinaTransportBehaviourTest.awaitUntil(state::isReadSuspended);
      byte[] got = new byte[3000];
      long read = 0;
      while (read < total) {
        int n = transport.read(got, 0, got.length);
        assertTrue(n > 0, "read returned " + n);
        read += n;
      }
      sent.get(20, TimeUnit.SECONDS);
      assertTrue(state.suspensions() >= 1);
      assertTrue(state.highWaterMark() <= limit + 2 * 64 * 1024, "high-water mark " + state.highWaterMark());
      // The session has been suspended, so a read now waits in 200 ms slices: 300 ms is 200 + 100.
      transport.timeout(Timeout.of(300, TimeUnit.MILLISECONDS));
      assertTimesOutNoSooner(transport, 300);
      server.close();
    }
  }

  @Test
  void closeFromAnotherThreadEndsAPendingRead() throws Exception {
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.tcp(); SocketPeer peer = new SocketPeer()) {
      SuspendingMinaTransport transport = connector.connect(peer.address(), TEN_SECONDS);
      peer.accept(PEER_WAIT);
      CompletableFuture<Throwable> pending = CompletableFuture.supplyAsync(() -> {
        try {
          transport.readLineStrict(10);
          return null;
        } catch (Throwable e) {
          return e;
        }
      });
      MinaTransportBehaviourTest.awaitUntil(transport.state()::isReaderWaiting);
      connector.close();
      Throwable ended = pending.get(10, TimeUnit.SECONDS);
      assertTrue(ended instanceof TransportClosedException, String.valueOf(ended));
      assertFalse(transport.isOpen());
      assertEquals(0, connector.openCount());
    }
  }

  @Test
  void waitingOnAMinaIoThreadIsRefusedAtOnce() throws Exception {
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.tcp(); SocketPeer peer = new SocketPeer()) {
      SuspendingMinaTransport transport = connector.connect(peer.address(), TEN_SECONDS);
      Peer.Connection server = peer.accept(PEER_WAIT);
      AtomicReference<Throwable> read = new AtomicReference<>();
      AtomicReference<Throwable> connect = new AtomicReference<>();
      CountDownLatch ran = new CountDownLatch(1);
      assertTrue(transport.state().wakeWhenReadable(() -> {
        read.set(attempt(() -> transport.readLineStrict(100)));
        connect.set(attempt(() -> connector.connect(peer.address(), TEN_SECONDS)));
        ran.countDown();
      }));
      server.send("partial".getBytes(UTF_8));
      assertTrue(ran.await(10, TimeUnit.SECONDS));
      for (Throwable refusal : new Throwable[] {read.get(), connect.get()}) {
        assertTrue(refusal instanceof BlockingOperationException, String.valueOf(refusal));
        assertTrue(refusal.getMessage().contains("I/O thread NioProcessor-"), refusal.getMessage());
      }
      server.close();
    }
  }

  interface Action {
    void run() throws Exception;
  }

  private static Throwable attempt(Action action) {
    try {
      action.run();
      return null;
    } catch (Throwable e) {
      return e;
    }
  }

  /** Sends {@code text} from another thread once the transport's reader is waiting for input. */
  private static CompletableFuture<Void> sendWhenWaiting(SuspendingMinaTransport transport,
      Peer.Connection server, String text) {
    return CompletableFuture.runAsync(() -> {
      try {
        MinaTransportBehaviourTest.awaitUntil(transport.state()::isReaderWaiting);
        server.send(text.getBytes(UTF_8));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
  }

  /** A read times out, never before its timeout (how late depends on the machine: not asserted). */
  private static void assertTimesOutNoSooner(SuspendingMinaTransport transport, long timeoutMs) {
    long start = System.nanoTime();
    TransportTimeoutException e = assertThrows(TransportTimeoutException.class, () -> transport.readLineStrict(100));
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertTrue(tookMs >= timeoutMs, "timed out after " + tookMs + " ms");
    String expected = "read timed out after " + timeoutMs + " ms waiting for a line (limit 100 bytes); ";
    assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    assertFalse(transport.isOpen(), "a timeout closes the transport");
  }
}
