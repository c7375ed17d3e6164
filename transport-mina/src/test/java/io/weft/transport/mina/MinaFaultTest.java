package io.weft.transport.mina;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.Connector;
import io.weft.transport.LineTooLongException;
import io.weft.transport.PeerClosedException;
import io.weft.transport.Peer;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.netty.SuspendingNettyConnector;
import io.weft.transport.netty.NettyConnector;
import io.weft.transport.netty.NettyTransports;
import io.weft.transport.spi.ConnectionState;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Both MINA transports, over TCP and the in-VM pipe, and both Netty transports (TCP), against a
 * peer that misbehaves: closes
 * (half-closes on TCP) after a reply, resets, sends more than the inbound limit in one reply,
 * or sends a line that never ends. Run on plain threads, where the continuing transport's
 * waits block on the same code paths they suspend on in a continuation. No operation timeout
 * is set where the fault must end the wait by itself: a hang fails the test by its own timeout.
 */
class MinaFaultTest {
  private static final Duration PEER_WAIT = Duration.ofSeconds(10);

  enum Kind {
    MINA_TCP(false, false),
    MINA_PIPE(false, true),
    SUSPENDING_TCP(true, false),
    SUSPENDING_PIPE(true, true),
    NETTY_TCP(false, false),
    SUSPENDING_NETTY_TCP(true, false);

    final boolean continuing;
    final boolean pipe;

    Kind(boolean continuing, boolean pipe) {
      this.continuing = continuing;
      this.pipe = pipe;
    }

    boolean netty() {
      return this == NETTY_TCP || this == SUSPENDING_NETTY_TCP;
    }

    Connector connector() {
      if (netty()) {
        return continuing ? SuspendingNettyConnector.tcp() : NettyConnector.tcp();
      }
      if (continuing) {
        return pipe ? SuspendingMinaConnector.vmPipe() : SuspendingMinaConnector.tcp();
      }
      return pipe ? MinaConnector.vmPipe() : MinaConnector.tcp();
    }

    Far listen() throws IOException {
      return pipe ? new PipeFar() : new TcpFar();
    }
  }

  /** The peer's end, scripted from the test thread. */
  interface Far extends AutoCloseable {
    SocketAddress address();

    void accept() throws Exception;

    void send(byte[] bytes) throws IOException;

    /** TCP: shutdownOutput (a FIN, the peer may still read). Pipe: the pipe's only close. */
    void halfClose() throws IOException;

    /** Sends {@code chunk} again and again on another thread until the connection breaks. */
    CompletableFuture<Void> sendForever(byte[] chunk);

    @Override
    void close() throws IOException;
  }

  static final class TcpFar implements Far {
    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private Socket socket;

    TcpFar() throws IOException {}

    @Override
    public SocketAddress address() {
      return server.getLocalSocketAddress();
    }

    @Override
    public void accept() throws IOException {
      server.setSoTimeout((int) PEER_WAIT.toMillis());
      socket = server.accept();
    }

    @Override
    public void send(byte[] bytes) throws IOException {
      OutputStream out = socket.getOutputStream();
      out.write(bytes);
      out.flush();
    }

    @Override
    public void halfClose() throws IOException {
      socket.shutdownOutput();
    }

    void reset() throws IOException {
      socket.setSoLinger(true, 0);
      socket.close();
    }

    @Override
    public CompletableFuture<Void> sendForever(byte[] chunk) {
      return CompletableFuture.runAsync(() -> {
        try {
          OutputStream out = socket.getOutputStream();
          for (;;) {
            out.write(chunk);
          }
        } catch (IOException expected) {
          // The client closed: the end of this peer's job.
        }
      });
    }

    @Override
    public void close() throws IOException {
      if (socket != null) {
        socket.close();
      }
      server.close();
    }
  }

  static final class PipeFar implements Far {
    private final VmPipePeer peer = new VmPipePeer();
    private Peer.Connection connection;
    /** The pipe's peer write does not fail once the client has gone; the test says when to stop. */
    private volatile boolean closed;

    PipeFar() throws IOException {}

    @Override
    public SocketAddress address() {
      return peer.address();
    }

    @Override
    public void accept() throws Exception {
      connection = peer.accept(PEER_WAIT);
    }

    @Override
    public void send(byte[] bytes) throws IOException {
      connection.send(bytes);
    }

    @Override
    public void halfClose() throws IOException {
      connection.close();
    }

    @Override
    public CompletableFuture<Void> sendForever(byte[] chunk) {
      return CompletableFuture.runAsync(() -> {
        try {
          while (!closed) {
            connection.send(chunk);
          }
        } catch (IOException | RuntimeException expected) {
          // The client closed: the end of this peer's job.
        }
      });
    }

    @Override
    public void close() {
      closed = true;
      peer.close();
    }
  }

  private static Transport connect(Connector connector, Far far) throws Exception {
    Transport transport = connector.connect(far.address(), Timeout.NONE);
    far.accept();
    return transport;
  }

  /** What the tests read of a transport's inbound and outbound state, on either library. */
  /** The transport's shared connection state, whichever library it runs on. */
  private static ConnectionState<?, ?> state(Transport transport) {
    if (transport instanceof MinaTransport) {
      return ((MinaTransport) transport).state();
    }
    if (transport instanceof SuspendingMinaTransport) {
      return ((SuspendingMinaTransport) transport).state();
    }
    return NettyTransports.state(transport);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aPeerClosingAfterItsReplyIsEndOfStreamToEveryRead(Kind kind) throws Exception {
    try (Connector connector = kind.connector()) {
      for (int read = 0; read < 3; read++) {
        try (Far far = kind.listen()) {
          Transport transport = connect(connector, far);
          far.send("one\r\n".getBytes(UTF_8));
          far.halfClose();
          assertEquals("one", transport.readLineStrict(100));
          switch (read) {
            case 0 -> assertNull(transport.readLine(100));
            case 1 -> assertThrows(EOFException.class, () -> transport.readLineStrict(100));
            default -> assertThrows(EOFException.class, () -> transport.readBytes(10));
          }
          transport.close();
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aWriteAfterThePeerClosedFailsAtOnceWithPeerClosedException(Kind kind) throws Exception {
    try (Connector connector = kind.connector(); Far far = kind.listen()) {
      Transport transport = connect(connector, far);
      far.send("bye\r\n".getBytes(UTF_8));
      far.halfClose();
      assertEquals("bye", transport.readLineStrict(100));
      assertNull(transport.readLine(100), "the close has arrived");
      PeerClosedException e = assertThrows(PeerClosedException.class, () -> transport.writeLine("QUIT"));
      assertTrue(e.getMessage().contains("peer closed"), e.getMessage());
      assertFalse(transport.isOpen(), "a failed send closes the transport");
      assertThrows(TransportClosedException.class, () -> transport.writeLine("again"));
    }
  }

  /**
   * The race the issue saw in continuation mode: the client answers a reply while the peer's
   * close is on its way. The send either goes out or fails with PeerClosedException; never
   * another type, never a hang (no timeout is set).
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aSendRacingThePeersCloseGoesOutOrFailsWithPeerClosedException(Kind kind) throws Exception {
    try (Connector connector = kind.connector()) {
      for (int i = 0; i < 200; i++) {
        try (Far far = kind.listen()) {
          Transport transport = connect(connector, far);
          far.send("reply\r\n".getBytes(UTF_8));
          far.halfClose();
          assertEquals("reply", transport.readLineStrict(100));
          try {
            transport.writeLine("next");
            transport.flush();
          } catch (PeerClosedException expected) {
            // The close arrived first: the other allowed outcome.
          }
          transport.close();
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = Kind.class, names = {"MINA_TCP", "SUSPENDING_TCP", "NETTY_TCP", "SUSPENDING_NETTY_TCP"})
  void aPendingFlushEndsWhenTheTransportIsClosedFromAnotherThread(Kind kind) throws Exception {
    try (Connector connector = kind.connector(); Far far = kind.listen()) {
      Transport transport = connect(connector, far);
      ConnectionState<?, ?> state = state(transport);
      byte[] big = new byte[32 * 1024 * 1024];
      // The peer reads nothing, so the write stays queued in the library until the close.
      CompletableFuture<Throwable> flush = CompletableFuture.supplyAsync(() -> {
        try {
          transport.write(big);
          transport.flush();
          return null;
        } catch (Throwable e) {
          return e;
        }
      });
      while (state.pendingWriteBytes() == 0) {
        assertFalse(flush.isDone(), () -> "the flush ended before the close: " + flush.join());
        Thread.onSpinWait();
      }
      transport.close();
      Throwable ended = flush.get(10, TimeUnit.SECONDS);
      assertTrue(ended instanceof TransportClosedException, String.valueOf(ended));
    }
  }

  @ParameterizedTest
  @EnumSource(value = Kind.class, names = {"MINA_TCP", "SUSPENDING_TCP", "NETTY_TCP", "SUSPENDING_NETTY_TCP"})
  void aResetIsTheSocketExceptionAPlainSocketThrowsAndMinaLogsNoError(Kind kind) throws Exception {
    String logged = capturingStandardError(() -> {
      try (Connector connector = kind.connector()) {
        for (int i = 0; i < 20; i++) {
          try (TcpFar far = (TcpFar) kind.listen()) {
            Transport transport = connect(connector, far);
            far.send("half a li".getBytes(UTF_8));
            far.reset();
            SocketException e = assertThrows(SocketException.class, () -> transport.readLineStrict(100));
            assertEquals("Connection reset", e.getMessage());
            assertFalse(transport.isOpen());
          }
        }
      }
    });
    assertFalse(logged.contains("ERROR"), logged);
  }

  @ParameterizedTest
  @EnumSource(value = Kind.class, names = {"MINA_TCP", "SUSPENDING_TCP", "NETTY_TCP", "SUSPENDING_NETTY_TCP"})
  void aFlushIntoAResetConnectionIsASocketExceptionAndMinaLogsNoError(Kind kind) throws Exception {
    String logged = capturingStandardError(() -> {
      try (Connector connector = kind.connector(); TcpFar far = (TcpFar) kind.listen()) {
        Transport transport = connect(connector, far);
        far.reset();
        byte[] chunk = new byte[64 * 1024];
        // The reset reaches the client while it sends: the read side or the write side sees it.
        IOException e = assertThrows(IOException.class, () -> {
          for (;;) {
            transport.write(chunk);
            transport.flush();
          }
        });
        assertTrue(e instanceof SocketException || e instanceof PeerClosedException, e.toString());
        assertFalse(transport.isOpen());
      }
    });
    assertFalse(logged.contains("ERROR"), logged);
  }

  interface Body {
    void run() throws Exception;
  }

  /** Runs {@code body} and returns what was written to System.err meanwhile (slf4j-simple's log). */
  private static String capturingStandardError(Body body) throws Exception {
    java.io.PrintStream original = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, UTF_8));
    try {
      body.run();
    } finally {
      System.setErr(original);
    }
    return captured.toString(UTF_8);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void readBytesOfOneAndSixteenMebibytesComplete(Kind kind) throws Exception {
    try (Connector connector = kind.connector()) {
      for (int size : new int[] {1024 * 1024, 16 * 1024 * 1024}) {
        try (Far far = kind.listen()) {
          Transport transport = connect(connector, far);
          byte[] reply = pattern(size);
          CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> sendQuietly(far, reply));
          assertArrayEquals(reply, transport.readBytes(size));
          sent.get(20, TimeUnit.SECONDS);
          assertTrue(state(transport).bufferCapacity() <= 64 * 1024,
              "the buffer gave back its grown array: " + state(transport).bufferCapacity());
          transport.close();
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aLineOfAMillionBytesWithinItsLimitCompletesWithNoTimeoutSet(Kind kind) throws Exception {
    try (Connector connector = kind.connector(); Far far = kind.listen()) {
      Transport transport = connect(connector, far);
      byte[] line = new byte[1_000_012];
      Arrays.fill(line, (byte) 'a');
      line[line.length - 2] = '\r';
      line[line.length - 1] = '\n';
      CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> sendQuietly(far, line));
      String got = transport.readLineStrict(2_000_000);
      sent.get(20, TimeUnit.SECONDS);
      assertEquals(1_000_010, got.length());
      transport.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anEndlessLineIsLineTooLongOnceItPassesTheLimit(Kind kind) throws Exception {
    try (Connector connector = kind.connector(); Far far = kind.listen()) {
      Transport transport = connect(connector, far);
      byte[] chunk = new byte[8192];
      Arrays.fill(chunk, (byte) 'x');
      CompletableFuture<Void> sending = far.sendForever(chunk);
      int limit = 2 * 1024 * 1024;
      LineTooLongException e = assertThrows(LineTooLongException.class, () -> transport.readLineStrict(limit));
      assertEquals(limit, e.limit());
      ConnectionState<?, ?> state = state(transport);
      assertTrue(state.highWaterMark() <= limit + 2 + 3 * 64 * 1024 || kind.pipe,
          "buffered no more than the line's limit and MINA's overshoot: " + state.highWaterMark());
      transport.close();
      far.close();
      sending.get(20, TimeUnit.SECONDS);
    }
  }

  private static void sendQuietly(Far far, byte[] bytes) {
    try {
      far.send(bytes);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static byte[] pattern(int size) {
    byte[] bytes = new byte[size];
    for (int i = 0; i < size; i++) {
      bytes[i] = (byte) (i % 251);
    }
    return bytes;
  }
}
