package io.weft.testsupport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.future.ConnectFuture;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.vmpipe.VmPipeAddress;
import org.apache.mina.transport.vmpipe.VmPipeConnector;
import org.junit.jupiter.api.Test;

class EchoServerTest {

  @Test
  void echoesEachLineByteForByteOverTcpWhateverItsTerminator() throws Exception {
    try (EchoServer server = EchoServer.tcp(); Socket socket = connect(server)) {
      assertTrue(server.address() instanceof InetSocketAddress);
      assertTrue(((InetSocketAddress) server.address()).getAddress().isLoopbackAddress());
      socket.getOutputStream().write("one\r\ntwo\nthr".getBytes(UTF_8));
      socket.getOutputStream().flush();
      assertEquals("one\r\ntwo\n", readBytes(socket, 9));
      socket.getOutputStream().write("ee\r\n".getBytes(UTF_8));
      assertEquals("three\r\n", readBytes(socket, 7));
      assertEquals(3, server.linesEchoed());
      assertEquals(1, server.sessionsOpened());
    }
  }

  @Test
  void echoesOverTheInVmPipe() throws Exception {
    try (EchoServer server = EchoServer.vmPipe()) {
      assertTrue(server.address() instanceof VmPipeAddress);
      PipeClient client = new PipeClient(server);
      try {
        client.send("hello\r\nwor");
        client.send("ld\n");
        // The pipe is synchronous and the server has no delay: the echo is already here.
        assertEquals("hello\r\nworld\n", client.received());
      } finally {
        client.close();
      }
    }
  }

  @Test
  void aDelayedReplyNeverComesBeforeTheDelayInAnySession() throws Exception {
    int sessions = 20;
    long delayMs = 100;
    try (EchoServer server = EchoServer.builder().delay(delayMs, TimeUnit.MILLISECONDS).startTcp()) {
      List<Socket> sockets = new ArrayList<>();
      try {
        for (int i = 0; i < sessions; i++) {
          sockets.add(connect(server));
        }
        long[] sent = new long[sessions];
        for (int i = 0; i < sessions; i++) {
          sent[i] = System.nanoTime();
          sockets.get(i).getOutputStream().write(("line " + i + "\n").getBytes(UTF_8));
        }
        List<CompletableFuture<Long>> arrivals = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
          Socket socket = sockets.get(i);
          String line = "line " + i + "\n";
          arrivals.add(CompletableFuture.supplyAsync(() -> {
            try {
              assertEquals(line, readBytes(socket, line.length()));
              return System.nanoTime();
            } catch (IOException e) {
              throw new AssertionError(e);
            }
          }));
        }
        for (int i = 0; i < sessions; i++) {
          long waited = arrivals.get(i).get(10, TimeUnit.SECONDS) - sent[i];
          // Semantics, not speed: a lower bound only.
          assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(delayMs), "session " + i + " waited " + waited + " ns");
        }
        assertEquals(sessions, server.linesReceived());
        assertEquals(sessions, server.linesEchoed());
      } finally {
        for (Socket socket : sockets) {
          socket.close();
        }
      }
    }
  }

  @Test
  void heldRepliesGoOutOnlyAfterReleaseAndInOrder() throws Exception {
    try (EchoServer server = EchoServer.tcp(); Socket socket = connect(server)) {
      socket.getOutputStream().write("before\n".getBytes(UTF_8));
      assertEquals("before\n", readBytes(socket, 7));
      server.hold();
      socket.getOutputStream().write("first\nsecond\n".getBytes(UTF_8));
      awaitLinesReceived(server, 3);
      assertEquals(1, server.linesEchoed(), "nothing answered while held");
      server.release();
      assertEquals("first\nsecond\n", readBytes(socket, 13));
      assertEquals(3, server.linesEchoed(), "counted as written");
    }
  }

  @Test
  void heldRepliesOverThePipeGoOutOnlyAfterRelease() throws Exception {
    try (EchoServer server = EchoServer.vmPipe()) {
      PipeClient client = new PipeClient(server);
      try {
        server.hold();
        client.send("held\n");
        // The pipe delivers inline: the line is in, its reply kept back.
        assertEquals(1, server.linesReceived());
        assertEquals("", client.received());
        server.release();
        assertEquals("held\n", client.awaitReceived("held\n"));
      } finally {
        client.close();
      }
    }
  }

  @Test
  void bindsAFreePortOnEveryLoopbackHostAsked() throws Exception {
    try (EchoServer server = EchoServer.builder().loopbackHosts(2).startTcp()) {
      assertEquals(2, server.addresses().size());
      assertEquals(server.address(), server.addresses().get(0));
      for (int i = 0; i < 2; i++) {
        InetSocketAddress address = (InetSocketAddress) server.addresses().get(i);
        assertEquals("127.0.0." + (i + 1), address.getAddress().getHostAddress());
        try (Socket socket = new Socket()) {
          socket.connect(address, 5000);
          socket.setSoTimeout(10_000);
          socket.getOutputStream().write("x\n".getBytes(UTF_8));
          assertEquals("x\n", readBytes(socket, 2));
        }
      }
    }
  }

  @Test
  void twoPipeServersGetTwoFreePipePorts() throws Exception {
    try (EchoServer one = EchoServer.vmPipe(); EchoServer two = EchoServer.vmPipe()) {
      assertTrue(((VmPipeAddress) one.address()).getPort() != 0);
      assertTrue(!one.address().equals(two.address()));
    }
  }

  /** Waits on the server's own count (received lines are counted once their reply is queued). */
  private static void awaitLinesReceived(EchoServer server, long lines) {
    while (server.linesReceived() < lines) {
      Thread.onSpinWait();
    }
  }

  private static void awaitLinesEchoed(EchoServer server, long lines) {
    while (server.linesEchoed() < lines) {
      Thread.onSpinWait();
    }
  }

  @Test
  void aReplyFunctionAnswersInsteadOfEchoing() throws Exception {
    try (EchoServer server = EchoServer.builder().replies(line -> "<" + line + ">").startTcp();
        Socket socket = connect(server)) {
      socket.getOutputStream().write("abc\r\nd\n".getBytes(UTF_8));
      assertEquals("<abc>\r\n<d>\r\n", readBytes(socket, 12));
    }
  }

  @Test
  void aLineOverTheLimitClosesItsSession() throws Exception {
    try (EchoServer server = EchoServer.builder().maxLineLength(10).startTcp();
        Socket socket = connect(server)) {
      socket.getOutputStream().write("0123456789\n".getBytes(UTF_8));
      assertEquals("0123456789\n", readBytes(socket, 11));
      socket.getOutputStream().write("0123456789A".getBytes(UTF_8));
      assertEquals(-1, socket.getInputStream().read(), "server closed the session");
    }
  }

  @Test
  void closeEndsEverySessionAndEveryThread() throws Exception {
    List<Thread> before = serverThreads();
    EchoServer server = EchoServer.builder().delay(1, TimeUnit.MILLISECONDS).startTcp();
    Socket socket = connect(server);
    socket.getOutputStream().write("x\n".getBytes(UTF_8));
    assertEquals("x\n", readBytes(socket, 2));
    List<Thread> during = serverThreads();
    during.removeAll(before);
    assertTrue(!during.isEmpty(), "the server runs threads of its own");
    server.close();
    server.close(); // twice is harmless
    assertEquals(-1, socket.getInputStream().read(), "the session was closed");
    socket.close();
    for (Thread thread : during) {
      // Ended, not merely told to: join returns at once for a thread that is done.
      thread.join(TimeUnit.SECONDS.toMillis(10));
      assertTrue(!thread.isAlive(), thread.getName() + " outlived close()");
    }
  }

  private static List<Thread> serverThreads() {
    List<Thread> threads = new ArrayList<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      String name = thread.getName();
      if (thread.isAlive() && (name.startsWith("NioSocketAcceptor") || name.startsWith("NioProcessor")
          || name.startsWith("echo-server-"))) {
        threads.add(thread);
      }
    }
    return threads;
  }

  private static Socket connect(EchoServer server) throws IOException {
    Socket socket = new Socket();
    socket.connect(server.address(), 5000);
    socket.setSoTimeout(10_000);
    return socket;
  }

  private static String readBytes(Socket socket, int n) throws IOException {
    InputStream in = socket.getInputStream();
    byte[] bytes = in.readNBytes(n);
    assertEquals(n, bytes.length, "bytes before end of stream");
    return new String(bytes, UTF_8);
  }

  /** A bare MINA in-VM client that records what it receives. */
  private static final class PipeClient {
    private final VmPipeConnector connector = new VmPipeConnector();
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final IoSession session;

    PipeClient(EchoServer server) {
      connector.setHandler(new IoHandlerAdapter() {
        @Override
        public void messageReceived(IoSession s, Object message) {
          IoBuffer buffer = (IoBuffer) message;
          byte[] bytes = new byte[buffer.remaining()];
          buffer.get(bytes);
          synchronized (received) {
            received.write(bytes, 0, bytes.length);
            received.notifyAll();
          }
        }
      });
      ConnectFuture future = connector.connect(server.address());
      assertTrue(future.awaitUninterruptibly(5000));
      session = future.getSession();
    }

    void send(String text) {
      assertTrue(session.write(IoBuffer.wrap(text.getBytes(UTF_8))).awaitUninterruptibly(5000));
    }

    String received() {
      synchronized (received) {
        return received.toString(UTF_8);
      }
    }

    /**
     * Waits until {@code expected} has arrived: the server counts a line echoed when it hands the
     * reply to MINA, a moment before the pipe delivers it here. Gives up after 10 s, so a reply
     * that never comes fails the test instead of hanging it.
     */
    String awaitReceived(String expected) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      synchronized (received) {
        while (!received.toString(UTF_8).equals(expected)) {
          long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
          if (left <= 0L) {
            break;
          }
          received.wait(left);
        }
        return received.toString(UTF_8);
      }
    }

    void close() {
      session.closeNow().awaitUninterruptibly(5000);
      connector.dispose(true);
    }
  }

  @Test
  void badOptionsAreRejectedWithTheirValue() {
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> EchoServer.builder().delay(-1, TimeUnit.MILLISECONDS));
    assertEquals("delay < 0: -1", e.getMessage());
  }
}
