package io.weft.transport.mina;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.BlockingOperationException;
import io.weft.transport.Peer;
import io.weft.transport.SocketPeer;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.mina.internal.SessionState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What MinaTransport does beyond the transport contract: bounded input, I/O-thread safety. */
class MinaTransportBehaviourTest {
  private static final Duration PEER_WAIT = Duration.ofSeconds(10);
  private static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);
  private static final int LIMIT = 16 * 1024;

  @Test
  void tcpPeerSendingFarMoreThanTheLimitIsHeldBackUntilTheClientReads() throws Exception {
    int total = 8 * 1024 * 1024;
    try (MinaConnector connector = MinaConnector.builder().inboundBufferLimit(LIMIT).tcp();
        SocketPeer peer = new SocketPeer()) {
      MinaTransport transport = connector.connect(peer.address(), TEN_SECONDS);
      Peer.Connection server = peer.accept(PEER_WAIT);
      // MINA may deliver a read or two (64 KiB each at most) before the suspension applies.
      assertBoundedThenIntact(transport, server, total, 8192, LIMIT + 2 * 64 * 1024);
    }
  }

  @Test
  void vmPipeIsNeverSuspendedBecauseItHasNoBackpressureAndKeepsItsOrder() throws Exception {
    int total = 1024 * 1024;
    try (MinaConnector connector = MinaConnector.builder().inboundBufferLimit(LIMIT).vmPipe();
        VmPipePeer peer = new VmPipePeer()) {
      MinaTransport transport = connector.connect(peer.address(), TEN_SECONDS);
      Peer.Connection server = peer.accept(PEER_WAIT);
      SessionState state = transport.state();
      CompletableFuture<Void> sent = sendPattern(server, total, 4096);
      byte[] got = new byte[total];
      int read = 0;
      while (read < total) {
        int n = transport.read(got, read, Math.min(3000, total - read));
        assertTrue(n > 0, "read returned " + n);
        read += n;
      }
      sent.get(20, TimeUnit.SECONDS);
      assertPattern(got);
      assertEquals(0, state.suspensions());
      server.close();
    }
  }

  private static void assertBoundedThenIntact(MinaTransport transport, Peer.Connection server,
      int total, int chunk, int bound) throws Exception {
    SessionState state = transport.state();
    CompletableFuture<Void> sent = sendPattern(server, total, chunk);
    // Nobody reads yet: the peer must be held back (the class's timeout ends a wait in vain).
    awaitUntil(state::isReadSuspended);

    byte[] got = new byte[total];
    int read = 0;
    while (read < total) {
      int n = transport.read(got, read, Math.min(3000, total - read));
      assertTrue(n > 0, "read returned " + n);
      read += n;
    }
    sent.get(20, TimeUnit.SECONDS);
    assertPattern(got);
    assertTrue(state.highWaterMark() <= bound, "high-water mark " + state.highWaterMark() + " > " + bound);
    assertTrue(state.suspensions() >= 1, "suspensions: " + state.suspensions());
    assertFalse(state.isReadSuspended(), "reading resumed once drained");
    server.close();
  }

  /**
   * Looks at {@code condition} a millisecond apart until it holds; fails if it does not within
   * a minute (a wrong outcome fails in bounded time, never spins for ever).
   */
  static void awaitUntil(java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("a condition the test waits for did not hold within 60 s");
      }
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }

  private static CompletableFuture<Void> sendPattern(Peer.Connection server, int total, int chunk) {
    return CompletableFuture.runAsync(() -> {
      try {
        byte[] piece = new byte[chunk];
        for (int offset = 0; offset < total; offset += chunk) {
          for (int i = 0; i < chunk; i++) {
            piece[i] = pattern(offset + i);
          }
          server.send(piece);
        }
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
  }

  private static void assertPattern(byte[] got) {
    for (int i = 0; i < got.length; i++) {
      if (got[i] != pattern(i)) {
        throw new AssertionError("byte " + i + " is " + got[i] + ", expected " + pattern(i));
      }
    }
  }

  private static byte pattern(int i) {
    return (byte) (i % 251);
  }

  @Test
  void waitingOnAnIoThreadIsRefusedAtOnceOverTcp() throws Exception {
    try (MinaConnector connector = MinaConnector.tcp(); SocketPeer peer = new SocketPeer()) {
      MinaTransport transport = connector.connect(peer.address(), TEN_SECONDS);
      Peer.Connection server = peer.accept(PEER_WAIT);
      List<Throwable> refusals = refusalsFromTheWakeup(connector, transport, peer.address(),
          () -> server.send("partial".getBytes(UTF_8)));
      assertRefusedOnAnIoThread(refusals, "NioProcessor-");
      server.close();
    }
  }

  @Test
  void waitingInsideAVmPipeCallbackIsRefusedButTheWriterThreadItselfMayWait() throws Exception {
    try (MinaConnector connector = MinaConnector.vmPipe(); VmPipePeer peer = new VmPipePeer()) {
      MinaTransport transport = connector.connect(peer.address(), TEN_SECONDS);
      Peer.Connection server = peer.accept(PEER_WAIT);
      // The pipe runs the client's callback on this, the peer's writing, thread.
      String self = Thread.currentThread().getName();
      List<Throwable> refusals = refusalsFromTheWakeup(connector, transport, peer.address(),
          () -> server.send("partial".getBytes(UTF_8)));
      assertRefusedOnAnIoThread(refusals, self);
      // Outside the callback, the same thread is an ordinary thread again.
      server.send(" line\r\n".getBytes(UTF_8));
      assertEquals("partial line", transport.readLineStrict(100));
      transport.writeLine("reply");
      transport.flush();
      assertEquals("x", server.readLine(PEER_WAIT), "the refused flush kept its bytes");
      assertEquals("reply", server.readLine(PEER_WAIT));
      server.close();
    }
  }

  interface Action {
    void run() throws Exception;
  }

  /** Registers a wake-up that tries each blocking operation, then triggers it with {@code send}. */
  private static List<Throwable> refusalsFromTheWakeup(MinaConnector connector, MinaTransport transport,
      java.net.SocketAddress address, Action send) throws Exception {
    List<Throwable> refusals = new ArrayList<>();
    AtomicReference<String> thread = new AtomicReference<>();
    CountDownLatch ran = new CountDownLatch(1);
    assertTrue(transport.state().wakeWhenReadable(() -> {
      thread.set(Thread.currentThread().getName());
      refusals.add(attempt(() -> transport.readLineStrict(100)));
      refusals.add(attempt(() -> {
        transport.writeLine("x");
        transport.flush();
      }));
      refusals.add(attempt(() -> connector.connect(address, TEN_SECONDS)));
      ran.countDown();
    }));
    send.run();
    assertTrue(ran.await(10, TimeUnit.SECONDS), "the wake-up ran");
    refusals.add(new Throwable("ran on " + thread.get()));
    return refusals;
  }

  private static Throwable attempt(Action action) {
    try {
      action.run();
      return null;
    } catch (Throwable e) {
      return e;
    }
  }

  private static void assertRefusedOnAnIoThread(List<Throwable> refusals, String threadPrefix) {
    assertTrue(refusals.get(refusals.size() - 1).getMessage().startsWith("ran on " + threadPrefix),
        refusals.get(refusals.size() - 1).getMessage());
    for (Throwable refusal : refusals.subList(0, refusals.size() - 1)) {
      assertNotNull(refusal, "an operation that must wait was allowed on an I/O thread");
      assertTrue(refusal instanceof BlockingOperationException, refusal.toString());
      assertTrue(refusal.getMessage().contains("MINA I/O thread"), refusal.getMessage());
    }
  }

  @Test
  void wakeWhenReadableRunsOnceOnNextInputAndRefusesWhenInputIsAlreadyThere() throws Exception {
    try (MinaConnector connector = MinaConnector.vmPipe(); VmPipePeer peer = new VmPipePeer()) {
      MinaTransport transport = connector.connect(peer.address(), TEN_SECONDS);
      Peer.Connection server = peer.accept(PEER_WAIT);
      SessionState state = transport.state();
      AtomicInteger runs = new AtomicInteger();
      assertTrue(state.wakeWhenReadable(runs::incrementAndGet));
      assertThrows(IllegalStateException.class, () -> state.wakeWhenReadable(runs::incrementAndGet));
      server.send("a".getBytes(UTF_8));
      server.send("b".getBytes(UTF_8));
      assertEquals(1, runs.get(), "runs once");
      assertFalse(state.wakeWhenReadable(runs::incrementAndGet), "input arrived since the last poll");
      byte[] buffer = new byte[10];
      assertEquals(2, state.poll(buffer, 0, 10));
      assertEquals(-2, state.poll(buffer, 0, 10));
      assertTrue(state.wakeWhenReadable(runs::incrementAndGet), "nothing new since the poll");
      transport.close();
      assertEquals(2, runs.get(), "a close wakes too");
      assertFalse(state.wakeWhenReadable(runs::incrementAndGet));
      server.close();
    }
  }

  @Test
  void closeFromAnotherThreadEndsAPendingConnectlessWaitAndLeavesNoMinaThreads() throws Exception {
    int before = minaThreads();
    MinaConnector tcp = MinaConnector.builder().processorCount(2).tcp();
    MinaConnector pipe = MinaConnector.vmPipe();
    try (SocketPeer socketPeer = new SocketPeer(); VmPipePeer pipePeer = new VmPipePeer()) {
      List<Transport> transports = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        transports.add(tcp.connect(socketPeer.address(), TEN_SECONDS));
        socketPeer.accept(PEER_WAIT);
        transports.add(pipe.connect(pipePeer.address(), TEN_SECONDS));
        pipePeer.accept(PEER_WAIT);
      }
      assertTrue(minaThreads() > before, "the connectors started threads");
      CompletableFuture<Throwable> pending = CompletableFuture.supplyAsync(
          () -> attempt(() -> transports.get(0).readLineStrict(10)));
      awaitUntil(((MinaTransport) transports.get(0)).state()::isReaderWaiting);
      tcp.close();
      pipe.close();
      Throwable ended = pending.get(10, TimeUnit.SECONDS);
      assertTrue(ended instanceof io.weft.transport.TransportClosedException, String.valueOf(ended));
      for (Transport transport : transports) {
        assertFalse(transport.isOpen());
      }
      assertEquals(0, tcp.openCount());
    }
    // close() waited for the connectors' executors; their threads may still be finishing.
    for (Thread thread : minaThreadList()) {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    }
    assertEquals(before, minaThreads(), "MINA threads left: " + minaThreadNames());
  }

  @Test
  void connectFailuresAreIoExceptionsAndMisuseIsRejected() throws Exception {
    java.net.InetSocketAddress closedPort;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = (java.net.InetSocketAddress) probe.getLocalSocketAddress();
    }
    try (MinaConnector tcp = MinaConnector.tcp(); MinaConnector pipe = MinaConnector.vmPipe()) {
      assertThrows(java.net.ConnectException.class, () -> tcp.connect(closedPort, TEN_SECONDS));
      java.io.IOException e = assertThrows(java.io.IOException.class,
          () -> pipe.connect(new org.apache.mina.transport.vmpipe.VmPipeAddress(1), TEN_SECONDS));
      assertTrue(e.getMessage().contains("unavailable"), e.getMessage());
      IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
          () -> pipe.connect(closedPort, TEN_SECONDS));
      assertTrue(wrong.getMessage().startsWith("not a VmPipeAddress: "), wrong.getMessage());
      assertEquals(0, tcp.openCount());
      assertEquals(0, pipe.openCount());
      tcp.close();
      assertThrows(io.weft.transport.TransportClosedException.class, () -> tcp.connect(closedPort, TEN_SECONDS));
    }
  }

  private static int minaThreads() {
    return minaThreadNames().size();
  }

  private static List<String> minaThreadNames() {
    List<String> names = new ArrayList<>();
    for (Thread thread : minaThreadList()) {
      names.add(thread.getName());
    }
    return names;
  }

  /** Threads this module's connectors run: MINA's names while working, Weft's while idle. */
  private static List<Thread> minaThreadList() {
    List<Thread> threads = new ArrayList<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      String name = thread.getName();
      if (thread.isAlive() && (name.startsWith("NioProcessor") || name.startsWith("NioSocketConnector")
          || name.startsWith("VmPipeConnector") || name.startsWith("weft-mina"))) {
        threads.add(thread);
      }
    }
    return threads;
  }
}
