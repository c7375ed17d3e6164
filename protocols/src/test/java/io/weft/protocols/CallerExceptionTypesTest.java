package io.weft.protocols;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.protocols.callers.PgConnectTask;
import io.weft.protocols.callers.RedisCallTask;
import io.weft.protocols.pg.PgException;
import io.weft.protocols.callers.SmtpGreetingTask;
import io.weft.protocols.redis.RedisErrorException;
import io.weft.protocols.smtp.SmtpReply;
import io.weft.protocols.smtp.SmtpReplyException;
import io.weft.transport.Connector;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.netty.SuspendingNettyConnector;
import io.weft.transport.socket.SocketConnector;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every exception type the protocol clients throw reaches the caller of {@code SessionRunner.run}
 * as the caller's own class, in every mode and over both suspending connectors, in each of 500
 * sessions: {@code instanceof}
 * and {@code catch} work outside the task, with the task's package and the clients' packages
 * instrumented. (The continuation loader leaves classes with nothing to rewrite to its parent, and
 * reaches their package-private members through accessors.)
 */
class CallerExceptionTypesTest {
  private static final int SESSIONS = 500;
  static final List<String> INSTRUMENTED = List.of(
      "io.weft.protocols.callers", "io.weft.protocols.smtp", "io.weft.protocols.redis", "io.weft.protocols.pg",
      "io.weft.protocols.internal");

  record Case(String name, Mode mode, Supplier<Connector> connector) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> modes() {
    return Stream.of(
        new Case("SYNC", Mode.SYNC, SocketConnector::new),
        new Case("THREADS", Mode.THREADS, SocketConnector::new),
        new Case("VIRTUAL_THREADS", Mode.VIRTUAL_THREADS, SocketConnector::new),
        new Case("CONTINUATIONS(1)/MINA", Mode.continuations(1), SuspendingMinaConnector::tcp),
        new Case("CONTINUATIONS(2)/MINA", Mode.continuations(2), SuspendingMinaConnector::tcp),
        new Case("CONTINUATIONS(1)/Netty", Mode.continuations(1), SuspendingNettyConnector::tcp),
        new Case("CONTINUATIONS(2)/Netty", Mode.continuations(2), SuspendingNettyConnector::tcp));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void smtpReplyExceptionIsTheCallersClass(Case c) throws Throwable {
    for (Throwable failure : failures(c, SmtpGreetingTask.class, 0, "554 5.3.2 no service\r\n")) {
      try {
        throw failure;
      } catch (SmtpReplyException e) {
        assertSame(SmtpReplyException.class, e.getClass());
        assertEquals(554, e.code());
        assertSame(SmtpReply.class, e.reply().getClass());
        assertEquals("5.3.2 no service", e.text());
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void redisErrorExceptionIsTheCallersClass(Case c) throws Throwable {
    for (Throwable failure : failures(c, RedisCallTask.class, 3, "-ERR boom\r\n")) {
      try {
        throw failure;
      } catch (RedisErrorException e) {
        assertSame(RedisErrorException.class, e.getClass());
        assertEquals("ERR", e.errorCode());
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void protocolViolationExceptionIsTheCallersClass(Case c) throws Throwable {
    for (Throwable failure : failures(c, RedisCallTask.class, 3, "?x\r\n")) {
      try {
        throw failure;
      } catch (ProtocolViolationException e) {
        assertSame(ProtocolViolationException.class, e.getClass());
      }
    }
  }

  /**
   * PostgreSQL's refusal of a session: an ErrorResponse to the StartupMessage, as for a failed
   * password.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void pgExceptionIsTheCallersClass(Case c) throws Throwable {
    for (Throwable failure : failures(c, PgConnectTask.class, CallerExceptionTypesTest::startupMessage, pgRefusal())) {
      try {
        throw failure;
      } catch (PgException e) {
        assertSame(PgException.class, e.getClass());
        assertEquals("28P01", e.sqlState());
      }
    }
  }

  /**
   * What ended each of {@value #SESSIONS} sessions of {@code task}, each against a server that
   * reads {@code lines} lines and answers {@code reply}.
   */
  private static List<Throwable> failures(Case c, Class<? extends SessionTask<?>> task, int lines, String reply)
      throws Exception {
    return failures(c, task, in -> lines(in, lines), reply);
  }

  /** The same, against a server that reads the client's request with {@code request}, then answers {@code reply}. */
  private static List<Throwable> failures(Case c, Class<? extends SessionTask<?>> task, Request request, String reply)
      throws Exception {
    assumeTrue(c.mode().kind() != Mode.Kind.VIRTUAL_THREADS || Runtime.version().feature() >= 21, "JDK 21+");
    Connector connector = c.connector().get();
    try (EveryClient server = new EveryClient(request, reply);
         SessionRunner runner = SessionRunner.builder().mode(c.mode()).connector(connector)
             .address(server.address()).timeout(Timeout.of(20, TimeUnit.SECONDS)).instrument(INSTRUMENTED.toArray(String[]::new))
             .build()) {
      @SuppressWarnings("unchecked")
      Class<? extends SessionTask<Object>> type = (Class<? extends SessionTask<Object>>) task;
      RunResult<Object> result = runner.run(type, SESSIONS);
      List<Throwable> out = new ArrayList<>();
      for (int i = 0; i < SESSIONS; i++) {
        Outcome<Object> o = result.outcome(i);
        if (o.status() != Outcome.Status.FAILED) {
          fail(c + ", session " + i + ": " + o);
        }
        out.add(o.failure());
      }
      return out;
    } finally {
      if (connector instanceof AutoCloseable) {
        ((AutoCloseable) connector).close();
      }
    }
  }

  /** An ErrorResponse to the StartupMessage, as for a failed password (SQLSTATE 28P01). */
  static String pgRefusal() {
    String fields = "SFATAL\0C28P01\0Mpassword authentication failed for user \"weft\"\0\0";
    return "E\0\0\0" + (char) (4 + fields.length()) + fields;
  }

  /** How the scripted server reads a client's request; false if the client went away first. */
  interface Request {
    boolean read(InputStream in) throws IOException;
  }

  /** Reads {@code count} lines. */
  static boolean lines(InputStream in, int count) throws IOException {
    for (int n = 0; n < count; ) {
      int b = in.read();
      if (b < 0) {
        return false;
      }
      if (b == '\n') {
        n++;
      }
    }
    return true;
  }

  /** Reads a PostgreSQL StartupMessage: its length (which counts itself), then the rest. */
  static boolean startupMessage(InputStream in) throws IOException {
    byte[] length = in.readNBytes(4);
    if (length.length < 4) {
      return false;
    }
    int rest = java.nio.ByteBuffer.wrap(length).getInt() - 4;
    return in.readNBytes(rest).length == rest;
  }

  /**
   * A loopback server that plays one exchange to every client, each on a thread of its own: reads
   * its request, sends the reply, and ends its side once the client has read it.
   */
  static final class EveryClient implements Closeable {
    private final ServerSocket server = new ServerSocket(0, SESSIONS, InetAddress.getLoopbackAddress());
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Request request;
    private final byte[] reply;

    EveryClient(Request request, String reply) throws IOException {
      this.request = request;
      this.reply = reply.getBytes(StandardCharsets.US_ASCII);
      Thread acceptor = new Thread(this::acceptAll, "every-client-" + server.getLocalPort());
      acceptor.setDaemon(true);
      acceptor.start();
    }

    InetSocketAddress address() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    private void acceptAll() {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          open.add(s);
          Thread t = new Thread(() -> play(s), "every-client-session");
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return;
        }
      }
    }

    private void play(Socket s) {
      try (s) {
        InputStream in = s.getInputStream();
        if (!request.read(in)) {
          return;
        }
        s.getOutputStream().write(reply);
        s.getOutputStream().flush();
        s.shutdownOutput();
        while (in.read() >= 0) {
          // Until the client closes: it has read the reply by then.
        }
      } catch (IOException e) {
        // The client went away: that connection is over.
      } finally {
        open.remove(s);
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : open) {
        s.close();
      }
    }
  }
}
