package io.weft.transport;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weft.transport.spi.ReplyTiming;
import io.weft.transport.spi.ReportsClose;
import java.io.EOFException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * The behaviour every {@link Transport} must have, written once. Each transport module runs it
 * through one {@code @ParameterizedClass} subclass, whose {@link Case}s (a {@link Connector}
 * and a real {@link Peer} each) are its transports: the same shape as the protocol suites'
 * modes, so a failure names the case and never hides the others.
 *
 * <p>Each test is bounded: JUnit fails it after 30 s rather than let a hang stall the build.
 */
@org.junit.jupiter.api.Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
public abstract class TransportContract {
  protected static final Duration PEER_WAIT = Duration.ofSeconds(10);
  protected static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);

  /** Makes one fresh connector or peer for a test; may throw what its constructor throws. */
  @FunctionalInterface
  public interface Factory<T> {
    /**
     * Makes one.
     *
     * @return a new instance, which the suite closes after the test
     * @throws Exception whatever making it throws
     */
    T make() throws Exception;
  }

  /**
   * One transport under the contract: its name in the report, what makes its connector, and what
   * makes the real peer it connects to.
   *
   * @param name how the case reads in the report
   * @param connectors makes the connector under test, one per test
   * @param peers makes the real server endpoint it connects to, one per test
   */
  public record Case(String name, Factory<? extends Connector> connectors, Factory<? extends Peer> peers) {
    @Override
    public String toString() {
      return name;
    }
  }

  private final Factory<? extends Connector> connectors;
  private final Factory<? extends Peer> peers;
  private Connector connector;
  protected Peer peer;

  /** @param transport the case this instance runs, injected by the subclass's {@code @ParameterizedClass} */
  protected TransportContract(Case transport) {
    this.connectors = transport.connectors();
    this.peers = transport.peers();
  }

  @BeforeEach
  void start() throws Exception {
    peer = peers.make();
    connector = connectors.make();
  }

  @AfterEach
  void stop() throws Exception {
    try {
      if (connector != null) {
        connector.close();
      }
    } finally {
      peer.close();
    }
  }

  /** The connector under test; the same instance for the whole test. */
  protected Connector connector() {
    return connector;
  }

  private Transport connect(Timeout timeout) throws Exception {
    return connector().connect(peer.address(), timeout);
  }

  /**
   * Connects within {@link #TEN_SECONDS}, then sets {@code timeout} for what follows: the short
   * timeout under test bounds the read, not a connect or handshake that a loaded machine slows.
   */
  private Transport connectThenTimeout(Timeout timeout) throws Exception {
    Transport transport = connect(TEN_SECONDS);
    transport.timeout(timeout);
    return transport;
  }

  /**
   * A runner holds a session's place until its transport reports the connection closed (see
   * {@link ReportsClose}): every transport over a socket reports it after close(), to one
   * watcher, and the peer then sees the connection's end.
   */
  @Test
  public void reportsItsConnectionClosedOnceItIsClosed() throws Exception {
    Transport transport = connect(TEN_SECONDS);
    Peer.Connection server = peer.accept(PEER_WAIT);
    assertTrue(transport instanceof ReportsClose, transport + " does not report its close");
    ReportsClose reports = (ReportsClose) transport;
    CountDownLatch reported = new CountDownLatch(1);
    reports.whenClosed(reported::countDown);
    assertThrows(IllegalStateException.class, () -> reports.whenClosed(() -> { }), "a second watcher");
    transport.writeLine("last");
    transport.flush();
    assertEquals("last", server.readLine(PEER_WAIT));
    assertEquals(1, reported.getCount(), "reported closed while open");
    transport.close();
    assertTrue(reported.await(PEER_WAIT.toSeconds(), TimeUnit.SECONDS), "the close was never reported");
    assertNull(server.readLine(PEER_WAIT), "the peer saw no end of stream");
    server.close();
  }

  @Test
  public void roundTripWritesALineAndReadsTheReply() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      transport.writeLine("hello, wörld");
      transport.flush();
      assertEquals("hello, wörld", server.readLine(PEER_WAIT));
      server.send("pong\r\n".getBytes(UTF_8));
      assertEquals("pong", transport.readLineStrict(100));
      assertTrue(transport.isOpen());
      server.close();
    }
  }

  @Test
  public void timesTheReplyFromTheLastSendToTheFirstByteAfterIt() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      assertTrue(transport instanceof ReplyTiming, transport::toString);
      ReplyTiming timing = (ReplyTiming) transport;
      AtomicLong now = new AtomicLong(1_000L);
      timing.timeReplies(now::get);
      assertEquals(ReplyTiming.NONE, timing.sentNanos());
      transport.writeLine("request");
      assertEquals(ReplyTiming.NONE, timing.sentNanos(), "buffered, not sent");
      transport.flush();
      assertEquals(1_000L, timing.sentNanos());
      assertEquals("request", server.readLine(PEER_WAIT));
      assertEquals(ReplyTiming.NONE, timing.firstByteNanos(), "no reply yet");
      now.set(1_400L);
      server.send("reply\r\n".getBytes(UTF_8));
      assertEquals("reply", transport.readLineStrict(64));
      assertEquals(1_400L, timing.firstByteNanos());
      // Later bytes, and the reads, leave the first byte where it was.
      now.set(9_000L);
      server.send("more\r\n".getBytes(UTF_8));
      assertEquals("more", transport.readLineStrict(64));
      assertEquals(1_400L, timing.firstByteNanos());
      assertEquals(1_000L, timing.sentNanos());
      // The next send starts the next exchange.
      now.set(10_000L);
      transport.writeLine("again");
      transport.flush();
      assertEquals(10_000L, timing.sentNanos());
      assertEquals(ReplyTiming.NONE, timing.firstByteNanos());
      assertEquals("again", server.readLine(PEER_WAIT));
      // Stopped, it stamps nothing.
      timing.timeReplies(null);
      transport.writeLine("untimed");
      transport.flush();
      assertEquals(ReplyTiming.NONE, timing.sentNanos());
      assertEquals("untimed", server.readLine(PEER_WAIT));
    }
  }

  @Test
  public void writesNothingUntilFlushed() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      transport.write("abc");
      transport.write(new byte[] {'d', 'e'});
      transport.write(new byte[] {'x', 'f', 'y'}, 1, 1);
      transport.write("é\n", ISO_8859_1);
      transport.flush();
      assertArrayEquals(new byte[] {'a', 'b', 'c', 'd', 'e', 'f', (byte) 0xe9, '\n'},
          server.readBytes(8, PEER_WAIT));
      server.close();
    }
  }

  /**
   * What {@code flush()} promises: the bytes are handed to the operating system (or the pipe's
   * peer) before it returns, not merely queued. A close discards what was not flushed, so a
   * transport that only queued would lose them here.
   */
  @Test
  public void flushHandsTheBytesOnBeforeItReturnsSoACloseRightAfterLosesNothing() throws Exception {
    byte[] payload = new byte[16 * 1024];
    for (int i = 0; i < payload.length; i++) {
      payload[i] = (byte) ('a' + i % 26);
    }
    Peer.Connection server;
    try (Transport transport = connect(TEN_SECONDS)) {
      server = peer.accept(PEER_WAIT);
      transport.write(payload);
      transport.flush();
    }
    assertArrayEquals(payload, server.readBytes(payload.length, PEER_WAIT));
    server.close();
  }

  @Test
  public void readsLinesAndBytesDeliveredOneByteAtATime() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      byte[] script = "first\r\nsecond\nxyz0123456789".getBytes(UTF_8);
      Thread sender = new Thread(() -> {
        try {
          server.sendOneByteAtATime(script);
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      sender.start();
      assertEquals("first", transport.readLineStrict(5));
      assertEquals("second", transport.readLineStrict(6));
      byte[] three = new byte[3];
      transport.readFully(three, 0, 3);
      assertArrayEquals("xyz".getBytes(UTF_8), three);
      assertArrayEquals("0123456789".getBytes(UTF_8), transport.readBytes(10));
      sender.join();
      server.close();
    }
  }

  @Test
  public void acceptsCrlfAndBareLfAndKeepsAStrayCr() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      server.send("a\r\nb\nc\rd\r\n\r\n".getBytes(UTF_8));
      assertEquals("a", transport.readLineStrict(10));
      assertEquals("b", transport.readLineStrict(10));
      assertEquals("c\rd", transport.readLineStrict(10));
      assertEquals("", transport.readLineStrict(0));
      server.close();
    }
  }

  @Test
  public void lineExactlyAtItsLimitIsAccepted() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      server.send("0123456789\r\n0123456789\n".getBytes(UTF_8));
      assertEquals("0123456789", transport.readLineStrict(10));
      assertEquals("0123456789", transport.readLine(10));
      server.close();
    }
  }

  @Test
  public void lineOneByteOverItsLimitIsAProtocolViolationQuotingIt() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      server.send("0123456789A\r\n".getBytes(UTF_8));
      LineTooLongException e = assertThrows(LineTooLongException.class, () -> transport.readLineStrict(10));
      assertEquals(10, e.limit());
      assertTrue(e.getMessage().contains("\"0123456789A"), e.getMessage());
      assertTrue(e instanceof java.net.ProtocolException);
      server.close();
    }
  }

  @Test
  public void overlongLineFailsBeforeItsEndArrives() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      byte[] junk = new byte[200];
      java.util.Arrays.fill(junk, (byte) 'x');
      junk[0] = 0x01;
      server.send(junk);
      LineTooLongException e = assertThrows(LineTooLongException.class, () -> transport.readLine(100));
      assertTrue(e.getMessage().startsWith("line longer than 100 bytes: \"\\x01xxx"), e.getMessage());
      assertTrue(e.getMessage().endsWith("\"..."), "quote is cut short: " + e.getMessage());
      server.close();
    }
  }

  @Test
  public void endOfStreamAtALineBoundary() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      server.send("last\r\n".getBytes(UTF_8));
      server.close();
      assertEquals("last", transport.readLine(100));
      assertNull(transport.readLine(100));
      assertNull(transport.readLine(100), "end of stream stays end of stream");
      EOFException e = assertThrows(EOFException.class, () -> transport.readLineStrict(100));
      assertTrue(e.getMessage().contains("end of stream"), e.getMessage());
      assertEquals(-1, transport.read(new byte[4], 0, 4));
    }
  }

  @Test
  public void endOfStreamMidLineIsAnEofExceptionQuotingThePartialLine() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      server.send("ok\npartial\tline".getBytes(UTF_8));
      server.close();
      assertEquals("ok", transport.readLineStrict(100));
      EOFException e = assertThrows(EOFException.class, () -> transport.readLineStrict(100));
      assertTrue(e.getMessage().contains("\"partial\\tline\""), e.getMessage());
    }
  }

  @Test
  public void lenientReadLineReturnsAPartialLastLineThenNull() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      server.send("tail".getBytes(UTF_8));
      server.close();
      assertEquals("tail", transport.readLine(100));
      assertNull(transport.readLine(100));
    }
  }

  @Test
  public void readFullyThrowsWhenTheStreamEndsFirst() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      server.send("abc".getBytes(UTF_8));
      server.close();
      EOFException e = assertThrows(EOFException.class, () -> transport.readBytes(5));
      assertTrue(e.getMessage().contains("3 of 5"), e.getMessage());
    }
  }

  @Test
  public void readReturnsWhatIsBufferedWithoutWaitingForMore() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      server.send("abc".getBytes(UTF_8));
      byte[] buffer = new byte[100];
      int total = 0;
      while (total < 3) {
        int n = transport.read(buffer, total, buffer.length - total);
        assertTrue(n > 0, "read returned " + n);
        total += n;
      }
      assertEquals("abc", new String(buffer, 0, total, UTF_8));
      assertEquals(0, transport.read(buffer, 0, 0));
      server.close();
    }
  }

  @Test
  public void readTimeoutFiresNeverBeforeTheTimeoutAndClosesTheTransport() throws Exception {
    Transport transport = connectThenTimeout(Timeout.of(200, TimeUnit.MILLISECONDS));
    Peer.Connection server = peer.accept(PEER_WAIT);
    long start = System.nanoTime();
    TransportTimeoutException e = assertThrows(TransportTimeoutException.class, () -> transport.readLineStrict(100));
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    // A lower bound only: how late a loaded machine wakes is not the transport's behaviour. The
    // message says which timer fired (the 200 ms per-operation timeout).
    assertTrue(tookMs >= 190, "timed out early, after " + tookMs + " ms");
    assertTrue(e.getMessage().contains("200 ms"), e.getMessage());
    assertTrue(e instanceof java.net.SocketTimeoutException);
    assertFalse(transport.isOpen());
    assertThrows(TransportClosedException.class, () -> transport.readLine(100));
    server.close();
  }

  @Test
  public void lineReadTimeoutNamesTheOperationTheLimitAndWhatArrived() throws Exception {
    Transport transport = connectThenTimeout(Timeout.of(200, TimeUnit.MILLISECONDS));
    Peer.Connection server = peer.accept(PEER_WAIT);
    // One write: the partial reply arrives with the line before it, so it is buffered when the
    // timeout fires.
    server.send("+OK\r\n+PON".getBytes(UTF_8));
    assertEquals("+OK", transport.readLineStrict(512));
    TransportTimeoutException e = assertThrows(TransportTimeoutException.class, () -> transport.readLineStrict(512));
    assertEquals("read timed out after 200 ms waiting for a line (limit 512 bytes); 4 bytes read so far: \"+PON\"",
        e.getMessage());
    server.close();
  }

  @Test
  public void exactReadTimeoutNamesTheByteCountAndQuotesWhatArrived() throws Exception {
    Transport transport = connectThenTimeout(Timeout.of(200, TimeUnit.MILLISECONDS));
    Peer.Connection server = peer.accept(PEER_WAIT);
    server.send("ok\nab\u00e9".getBytes(UTF_8));
    assertEquals("ok", transport.readLineStrict(10));
    TransportTimeoutException e = assertThrows(TransportTimeoutException.class, () -> transport.readBytes(10));
    assertEquals("read timed out after 200 ms waiting for 10 bytes; 4 bytes read so far: \"ab\\xc3\\xa9\"",
        e.getMessage());
    server.close();
  }

  @Test
  public void readTimeoutWithNothingBufferedSaysNothingArrived() throws Exception {
    Transport transport = connectThenTimeout(Timeout.of(200, TimeUnit.MILLISECONDS));
    Peer.Connection server = peer.accept(PEER_WAIT);
    TransportTimeoutException e =
        assertThrows(TransportTimeoutException.class, () -> transport.read(new byte[8], 0, 8));
    assertEquals("read timed out after 200 ms waiting for any bytes; nothing read so far", e.getMessage());
    server.close();
  }

  @Test
  public void sessionDeadlineBoundsTheWholeSession() throws Exception {
    Timeout timeout = Timeout.of(5, TimeUnit.SECONDS).withSessionDeadline(300, TimeUnit.MILLISECONDS);
    Transport transport = connect(timeout);
    Peer.Connection server = peer.accept(PEER_WAIT);
    server.send("one\n".getBytes(UTF_8));
    assertEquals("one", transport.readLineStrict(10));
    TransportTimeoutException e = assertThrows(TransportTimeoutException.class, () -> transport.readLineStrict(10));
    // The deadline (300 ms from connect) fired, not the 5 s per-operation timeout: the message
    // names the timer, so no wall-clock bound is needed to tell them apart.
    assertEquals("read timed out: session deadline of 300 ms passed waiting for a line (limit 10 bytes); "
        + "nothing read so far", e.getMessage());
    assertFalse(transport.isOpen());
    server.close();
  }

  // The fault tests below need no wall-clock bound: the operation timeout is 10 s, and a read
  // that waited for it would end with TransportTimeoutException, which each asserts it did not.

  @Test
  public void peerClosingMidSessionEndsThePendingRead() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      server.send("half a li".getBytes(UTF_8));
      Thread closer = whenBlockedInRead(Thread.currentThread(), transport, server::close);
      assertThrows(EOFException.class, () -> transport.readLineStrict(100));
      closer.join();
    }
  }

  @Test
  public void peerResettingMidSessionIsAnIoExceptionNotAHang() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      server.send("half a li".getBytes(UTF_8));
      Thread resetter = whenBlockedInRead(Thread.currentThread(), transport, server::reset);
      IOException e = assertThrows(IOException.class, () -> {
        transport.readLineStrict(100);
        transport.readLineStrict(100);
      });
      assertFalse(e instanceof TransportTimeoutException, e.toString());
      resetter.join();
    }
  }

  @Test
  public void aTlsAlertAsThePeersFirstBytesFailsTheReadWithTlsRequired() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      // What a JDK TLS server sends a client that spoke plaintext to it: fatal unexpected_message.
      server.send(new byte[] {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0a});
      TlsRequiredException e = assertThrows(TlsRequiredException.class, () -> transport.readLine(100));
      assertTrue(e.getMessage().startsWith("the peer at "), e.getMessage());
      assertTrue(e.getMessage().endsWith(" answered with a fatal TLS alert (unexpected_message): it expects TLS;"
          + " connect with TlsSettings or call startTls"), e.getMessage());
      assertEquals(10, e.alertDescription());
      assertFalse(transport.isOpen());
      server.close();
    }
  }

  @Test
  public void firstBytesOneByteAwayFromATlsAlertAreData() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      byte[] lengthThree = {0x15, 0x03, 0x03, 0x00, 0x03, 0x02, 0x0a};
      server.send(lengthThree);
      assertArrayEquals(lengthThree, transport.readBytes(lengthThree.length));
      assertTrue(transport.isOpen());
      server.close();
    }
  }

  @Test
  public void everyOperationAfterCloseThrowsTransportClosed() throws Exception {
    Transport transport = connect(TEN_SECONDS);
    Peer.Connection server = peer.accept(PEER_WAIT);
    transport.close();
    transport.close(); // a second close does nothing
    assertFalse(transport.isOpen());
    assertThrows(TransportClosedException.class, () -> transport.write("x"));
    assertThrows(TransportClosedException.class, () -> transport.writeLine("x"));
    assertThrows(TransportClosedException.class, () -> transport.write(new byte[1]));
    assertThrows(TransportClosedException.class, transport::flush);
    assertThrows(TransportClosedException.class, () -> transport.readLine(10));
    assertThrows(TransportClosedException.class, () -> transport.readBytes(1));
    assertNull(server.readLine(PEER_WAIT), "peer sees end of stream");
    server.close();
  }

  @Test
  public void closeFromAnotherThreadEndsAPendingRead() throws Exception {
    Transport transport = connect(TEN_SECONDS);
    Peer.Connection server = peer.accept(PEER_WAIT);
    Thread closer = whenBlockedInRead(Thread.currentThread(), transport, transport::close);
    IOException e = assertThrows(IOException.class, () -> transport.readLineStrict(100));
    assertTrue(e instanceof TransportClosedException || e instanceof EOFException, e.toString());
    closer.join();
    server.close();
  }

  @Test
  public void badArgumentsAreRejectedWithTheirValue() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> transport.readLine(-1));
      assertEquals("limit < 0: -1", e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> transport.readBytes(-2));
      assertEquals("byteCount < 0: -2", e.getMessage());
      assertThrows(IndexOutOfBoundsException.class, () -> transport.readFully(new byte[2], 1, 2));
      assertThrows(IndexOutOfBoundsException.class, () -> transport.write(new byte[2], 1, 2));
      assertTrue(transport.isOpen(), "argument errors do not close the transport");
      server.close();
    }
  }

  @Test
  public void twoHundredConcurrentSessionsEachGetTheirOwnData() throws Exception {
    int sessions = 200;
    int lines = 5;
    ExecutorService clients = Executors.newFixedThreadPool(sessions);
    List<Thread> servers = new ArrayList<>();
    AtomicBoolean serverFailed = new AtomicBoolean();
    CountDownLatch accepted = new CountDownLatch(sessions);
    Thread acceptor = new Thread(() -> {
      try {
        for (int i = 0; i < sessions; i++) {
          Peer.Connection connection = peer.accept(PEER_WAIT);
          Thread echo = new Thread(() -> {
            try {
              String line;
              while ((line = connection.readLine(PEER_WAIT)) != null) {
                connection.send(("echo " + line + "\r\n").getBytes(UTF_8));
              }
              connection.close();
            } catch (Exception e) {
              serverFailed.set(true);
            }
          });
          echo.start();
          synchronized (servers) {
            servers.add(echo);
          }
          accepted.countDown();
        }
      } catch (Exception e) {
        serverFailed.set(true);
      }
    });
    acceptor.start();
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int s = 0; s < sessions; s++) {
        int id = s;
        results.add(clients.submit(() -> {
          try (Transport transport = connect(TEN_SECONDS)) {
            for (int i = 0; i < lines; i++) {
              transport.writeLine("session " + id + " line " + i);
              transport.flush();
              String reply = transport.readLineStrict(100);
              if (!reply.equals("echo session " + id + " line " + i)) {
                return "session " + id + " got " + reply;
              }
            }
            return null;
          }
        }));
      }
      for (Future<String> result : results) {
        String problem = result.get(20, TimeUnit.SECONDS);
        if (problem != null) {
          fail(problem);
        }
      }
      assertTrue(accepted.await(10, TimeUnit.SECONDS));
    } finally {
      clients.shutdownNow();
      acceptor.join(10_000);
      synchronized (servers) {
        for (Thread t : servers) {
          t.join(10_000);
        }
      }
    }
    assertFalse(serverFailed.get(), "a server-side echo thread failed");
  }

  interface Action {
    void run() throws Exception;
  }

  /**
   * Runs {@code action} on a new thread once {@code reader} is blocked in a read of
   * {@code transport}: its stack holds a frame of the transport's class and ends in a native
   * call (parked, or in the socket's poll). The transport's own state, seen from outside, with
   * no assumption about how long anything takes.
   */
  private static Thread whenBlockedInRead(Thread reader, Transport transport, Action action) {
    Set<String> transportClasses = new HashSet<>();
    for (Class<?> c = transport.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      transportClasses.add(c.getName());
    }
    Thread t = new Thread(() -> {
      try {
        long deadline = System.nanoTime() + PEER_WAIT.toNanos();
        while (!blockedIn(reader, transportClasses)) {
          if (System.nanoTime() - deadline > 0) {
            throw new AssertionError("the read never blocked: " + Arrays.toString(reader.getStackTrace()));
          }
          // Polls the reader's state; nothing is ordered by this pause.
          LockSupport.parkNanos(100_000L);
        }
        action.run();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }, "when-blocked-in-read");
    t.start();
    return t;
  }

  // ---- binary helpers (io.weft.transport.binary.Binary) over this transport ----

  /** Numbers, a frame and C strings as a binary protocol's server sends them. */
  private static byte[] binaryScript() {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1024);
    b.put((byte) 0xfe).putShort((short) -2).putInt(0x01020304).putLong(Long.MIN_VALUE + 5);
    b.putInt(5).put("hello".getBytes(UTF_8));
    b.put("wörld\0".getBytes(UTF_8));
    b.putInt(0);
    b.putInt(600);
    for (int i = 0; i < 600; i++) {
      b.put((byte) i);
    }
    b.flip();
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    return bytes;
  }

  private static void readBinaryScript(Transport transport) throws IOException {
    assertEquals(0xfe, io.weft.transport.binary.Binary.readUnsignedByte(transport));
    assertEquals(-2, io.weft.transport.binary.Binary.readShort(transport));
    assertEquals(0x01020304, io.weft.transport.binary.Binary.readInt(transport));
    assertEquals(Long.MIN_VALUE + 5, io.weft.transport.binary.Binary.readLong(transport));
    java.nio.ByteBuffer reused = java.nio.ByteBuffer.allocate(16);
    java.nio.ByteBuffer frame = io.weft.transport.binary.Binary.readFrame(transport, reused, 100);
    assertTrue(frame == reused, "a large enough buffer is reused");
    assertEquals(5, frame.remaining());
    assertEquals("hello", new String(frame.array(), 0, 5, UTF_8));
    assertEquals("wörld", io.weft.transport.binary.Binary.readCString(transport, 6));
    assertEquals(0, io.weft.transport.binary.Binary.readFrame(transport, frame, 100).remaining());
    java.nio.ByteBuffer grown = io.weft.transport.binary.Binary.readFrame(transport, frame, 600);
    assertEquals(600, grown.remaining());
    for (int i = 0; i < 600; i++) {
      assertEquals((byte) i, grown.get(i), "byte " + i);
    }
  }

  @Test
  public void binaryReadsTakeNumbersFramesAndCStringsDeliveredWhole() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      server.send(binaryScript());
      readBinaryScript(transport);
      server.close();
    }
  }

  @Test
  public void binaryReadsTakeNumbersFramesAndCStringsDeliveredOneByteAtATime() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      Thread sender = new Thread(() -> {
        try {
          server.sendOneByteAtATime(binaryScript());
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      sender.start();
      readBinaryScript(transport);
      sender.join();
      server.close();
    }
  }

  @Test
  public void binaryWritesAreBigEndianAndBufferedUntilFlush() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      io.weft.transport.binary.Binary.writeByte(transport, 0x1fe);
      io.weft.transport.binary.Binary.writeShort(transport, -2);
      io.weft.transport.binary.Binary.writeInt(transport, 0x01020304);
      io.weft.transport.binary.Binary.writeLong(transport, Long.MIN_VALUE + 5);
      io.weft.transport.binary.Binary.writeFrame(transport, java.nio.ByteBuffer.wrap("hello".getBytes(UTF_8)));
      io.weft.transport.binary.Binary.writeCString(transport, "wörld");
      io.weft.transport.binary.Binary.writeFrame(transport, java.nio.ByteBuffer.allocate(0));
      byte[] body = new byte[600];
      for (int i = 0; i < 600; i++) {
        body[i] = (byte) i;
      }
      io.weft.transport.binary.Binary.writeFrame(transport, java.nio.ByteBuffer.wrap(body));
      transport.flush();
      byte[] expected = binaryScript();
      assertArrayEquals(expected, server.readBytes(expected.length, PEER_WAIT));
      server.close();
    }
  }

  /**
   * A peer that claims a 1 GiB frame and sends 10 bytes: the reader holds what came (a
   * few hundred bytes), not what was claimed, and says how much came at the end of the stream.
   */
  @Test
  public void binaryFrameMemoryFollowsTheBytesReceivedNotTheClaimedLength() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      byte[] claim = {0x40, 0, 0, 0, '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'};
      server.send(claim);
      server.close();
      long before = allocatedByThisThread();
      EOFException e = assertThrows(EOFException.class,
          () -> io.weft.transport.binary.Binary.readFrame(transport, null, Integer.MAX_VALUE));
      long allocated = allocatedByThisThread() - before;
      assertEquals("end of stream after 10 of a 1073741824-byte frame", e.getMessage());
      if (before >= 0) {
        assertTrue(allocated < 1024 * 1024, "allocated " + allocated + " bytes for a 10-byte body");
      }
    }
  }

  @Test
  public void binaryLengthsOverTheLimitAreRefusedBeforeReadingTheBody() throws Exception {
    try (Transport transport = connect(TEN_SECONDS)) {
      Peer.Connection server = peer.accept(PEER_WAIT);
      server.send(new byte[] {0, 0, 1, 1, 'a', 'b', 'c', 'd', 'e', 0, 'x', 'y'});
      ProtocolViolationException over = assertThrows(ProtocolViolationException.class,
          () -> io.weft.transport.binary.Binary.readFrame(transport, null, 256));
      assertEquals("frame length 257 over the limit of 256 bytes", over.getMessage());
      ProtocolViolationException longString = assertThrows(ProtocolViolationException.class,
          () -> io.weft.transport.binary.Binary.readCString(transport, 4));
      assertEquals("C string over the limit of 4 bytes: \"abcd\"", longString.getMessage());
      server.close();
    }
  }

  /** Bytes this thread allocated so far, or -1 where the JVM does not count them. */
  private static long allocatedByThisThread() {
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    if (threads instanceof com.sun.management.ThreadMXBean) {
      com.sun.management.ThreadMXBean counting = (com.sun.management.ThreadMXBean) threads;
      if (counting.isThreadAllocatedMemorySupported() && counting.isThreadAllocatedMemoryEnabled()) {
        return counting.getThreadAllocatedBytes(Thread.currentThread().getId());
      }
    }
    return -1;
  }

  private static boolean blockedIn(Thread reader, Set<String> transportClasses) {
    StackTraceElement[] stack = reader.getStackTrace();
    if (stack.length == 0 || !stack[0].isNativeMethod()) {
      return false;
    }
    for (StackTraceElement frame : stack) {
      if (transportClasses.contains(frame.getClassName())) {
        return true;
      }
    }
    return false;
  }
}
