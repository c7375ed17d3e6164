package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.mina.testclient.BlockingFromLoopTask;
import io.weft.transport.mina.testclient.ConfinedReadsTask;
import io.weft.transport.mina.testclient.FlushThenCloseTask;
import io.weft.transport.mina.testclient.WhereResumedTask;
import io.weft.transport.netty.NettyConnector;
import io.weft.transport.netty.NettyTransports;
import io.weft.transport.spi.InboundState;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Continuations resumed on a transport's I/O threads (MINA's processors, Netty's event loops)
 * over real loopback TCP: sessions continue where
 * their bytes arrive (or, with {@code resumeOnWorkers}, never there); a flush made on an I/O
 * thread has handed its bytes on when it returns, so the close right after it loses nothing; and
 * a blocking connector used from a session on an I/O thread fails fast with
 * {@link io.weft.transport.BlockingOperationException} instead of blocking it.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(SuspendingLoops.class)
class IoThreadResumeTest {
  @Parameter
  SuspendingLoops loops;

  private static final String CLIENT = "io.weft.transport.mina.testclient";
  private static final int SESSIONS = 50;
  private static final int BULK = 16 * 1024;

  private final Queue<Integer> bulkLengths = new ConcurrentLinkedQueue<>();
  private final CountDownLatch bulksIn = new CountDownLatch(SESSIONS);
  private Connector connector;
  private ServerSocket server;
  private SocketAddress address;

  @BeforeEach
  void start() throws IOException {
    connector = loops.connectors.get();
    server = new ServerSocket(0, SESSIONS, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          Thread t = new Thread(() -> serve(s), "echo-connection");
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return;
        }
      }
    }, "echo-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
    address = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  @AfterEach
  void stop() throws IOException {
    connector.close();
    server.close();
  }

  /** Echoes each line, except a "bulk " line, whose length it records. */
  private void serve(Socket s) {
    try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
      OutputStream out = s.getOutputStream();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("bulk ")) {
          bulkLengths.add(line.length());
          bulksIn.countDown();
        } else {
          out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
      }
    } catch (IOException e) {
      // the client closed
    }
  }

  private RunResult<String> run(Mode mode, Class<? extends SessionTask<String>> task, Object... args)
      throws InterruptedException {
    try (SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(address)
        .timeout(Timeout.of(20, TimeUnit.SECONDS)).instrument(CLIENT).build()) {
      RunResult<String> result = runner.run(task, SESSIONS, args);
      assertTrue(result.allSucceeded(), () -> result.failures().get(0).toString());
      return result;
    }
  }

  private static int onLoop(RunResult<String> result, int lines) {
    int total = 0;
    for (Outcome<String> o : result.outcomes()) {
      String[] parts = o.value().split(":");
      assertEquals(String.valueOf(lines), parts[0], o.value());
      total += Integer.parseInt(parts[1]);
    }
    return total;
  }

  @Test
  void sessionsContinueOnTheIoThreadWhereTheirRepliesArrive() throws Exception {
    RunResult<String> result = run(Mode.continuations(1), WhereResumedTask.class, 20);
    assertTrue(onLoop(result, 20) > 0, "no read returned on an I/O thread");
  }

  /**
   * A session resumed on its connection's I/O thread reads from a state confined to that thread:
   * the reply's delivery and the poll that takes it run without the state's lock.
   */
  @Test
  void aSessionResumedOnItsIoThreadReadsFromAStateConfinedToIt() throws Exception {
    Function<Transport, InboundState<?>> states = IoThreadResumeTest::stateOf;
    RunResult<String> result = run(Mode.continuations(1), ConfinedReadsTask.class, 20, states);
    int pairs = 0;
    for (Outcome<String> o : result.outcomes()) {
      String[] parts = o.value().split(":");
      assertEquals("0", parts[3], () -> "a read returned on a loop thread its state is not confined to: " + o.value());
      assertEquals(parts[1], parts[2], () -> "reads on the loop across which no section ran confined: " + o.value());
      pairs += Integer.parseInt(parts[1]);
    }
    assertTrue(pairs > 0, "no two reads in a row returned on an I/O thread");
  }

  /**
   * Where no session is resumed on its loop (the blocking modes, {@code resumeOnWorkers}), no
   * state is confined to the loop: every reader's section takes the plain lock, as before, rather
   * than the foreign path against a bound loop.
   */
  @Test
  void aStateIsConfinedToNoThreadWhereNoSessionResumesOnItsLoop() throws Exception {
    Function<Transport, InboundState<?>> states = IoThreadResumeTest::stateOf;
    java.util.List<Mode> modes = new java.util.ArrayList<>(
        java.util.List.of(Mode.SYNC, Mode.THREADS, Mode.continuations(1).resumeOnWorkers()));
    if (Runtime.version().feature() >= 21) {
      modes.add(Mode.VIRTUAL_THREADS);
    }
    for (Mode mode : modes) {
      RunResult<String> result = run(mode, ConfinedReadsTask.class, 20, states);
      for (Outcome<String> o : result.outcomes()) {
        String[] parts = o.value().split(":");
        assertEquals("20", parts[0], o.value());
        assertEquals("false", parts[4], () -> mode + ": a state confined to its loop, though no session polled there: " + o.value());
      }
    }
  }

  /** The state of the connector's transport that {@code t} is, or wraps. */
  private static InboundState<?> stateOf(Transport t) {
    Transport own = unwrapped(t);
    if (own instanceof SuspendingMinaTransport) {
      return ((SuspendingMinaTransport) own).state();
    }
    if (own.getClass().getPackageName().equals("io.weft.transport.netty")) {
      return NettyTransports.state(own);
    }
    throw new AssertionError("not a MINA or Netty transport, nor one wrapped in a single Transport field: " + t.getClass());
  }

  /**
   * The connector's transport: {@code t} itself (the MINA and Netty transports reach the task
   * unwrapped in every mode, since they make continuation mode's entry check themselves), or, under
   * a wrapper such as the runner's {@code CheckedTransport} (defined by the runner's own loader, so
   * it cannot be cast to), its one field of type {@link Transport}. A wrapper of another shape fails
   * here, by name.
   */
  private static Transport unwrapped(Transport t) {
    if (t instanceof SuspendingMinaTransport || t.getClass().getPackageName().equals("io.weft.transport.netty")) {
      return t;
    }
    java.lang.reflect.Field found = null;
    for (java.lang.reflect.Field f : t.getClass().getDeclaredFields()) {
      if (f.getType() == Transport.class) {
        if (found != null) {
          throw new AssertionError(t.getClass() + " has more than one Transport field: cannot tell its delegate");
        }
        found = f;
      }
    }
    if (found == null) {
      throw new AssertionError(t.getClass() + " wraps no Transport field: cannot reach the connector's transport");
    }
    try {
      found.setAccessible(true);
      return (Transport) found.get(t);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError("cannot read " + found + " of " + t.getClass(), e);
    }
  }

  @Test
  void resumeOnWorkersNeverRunsASessionOnAnIoThread() throws Exception {
    RunResult<String> result = run(Mode.continuations(1).resumeOnWorkers(), WhereResumedTask.class, 20);
    assertEquals(0, onLoop(result, 20));
  }

  @Test
  void aFlushOnAnIoThreadHasHandedItsBytesOnWhenItReturns() throws Exception {
    RunResult<String> result = run(Mode.continuations(1), FlushThenCloseTask.class, BULK);
    assertTrue(result.outcomes().stream().anyMatch(o -> o.value().equals("loop")),
        () -> "no flush ran on an I/O thread: " + result.outcomes());
    assertTrue(bulksIn.await(20, TimeUnit.SECONDS), "bulk lines received: " + bulkLengths.size());
    for (int length : bulkLengths) {
      assertEquals(BULK, length);
    }
  }

  @Test
  void aBlockingMinaConnectorFailsFastOnAnIoThread() throws Exception {
    try (MinaConnector blocking = MinaConnector.tcp()) {
      assertRefusedOnLoop(run(Mode.continuations(1), BlockingFromLoopTask.class, blocking, address));
    }
  }

  @Test
  void aBlockingNettyConnectorFailsFastOnAnIoThread() throws Exception {
    try (NettyConnector blocking = NettyConnector.tcp()) {
      assertRefusedOnLoop(run(Mode.continuations(1), BlockingFromLoopTask.class, blocking, address));
    }
  }

  @Test
  void aSocketConnectorFailsFastOnAnIoThread() throws Exception {
    try (SocketConnector blocking = new SocketConnector()) {
      assertRefusedOnLoop(run(Mode.continuations(1), BlockingFromLoopTask.class, (Connector) blocking, address));
    }
  }

  private static void assertRefusedOnLoop(RunResult<String> result) {
    long refused = result.outcomes().stream().filter(o -> o.value().equals("refused")).count();
    long blocked = result.outcomes().stream().filter(o -> o.value().equals("blocked")).count();
    assertEquals(0L, blocked, "a blocking connect ran on an I/O thread");
    assertTrue(refused > 0, () -> "no session reached an I/O thread: " + result.outcomes());
  }
}
