package io.weft.protocols;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.protocols.callers.RedisCallTask;
import io.weft.protocols.callers.SmtpGreetingTask;
import io.weft.protocols.redis.RedisErrorException;
import io.weft.protocols.smtp.SmtpReply;
import io.weft.protocols.smtp.SmtpReplyException;
import io.weft.testsupport.ScriptedServer;
import io.weft.testsupport.ScriptedServer.Delivery;
import io.weft.transport.Connector;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.netty.SuspendingNettyConnector;
import io.weft.transport.socket.SocketConnector;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every exception type the protocol clients throw reaches the caller of {@code SessionRunner.run}
 * as the caller's own class, in every mode and over both suspending connectors: {@code instanceof}
 * and {@code catch} work outside the task, with the task's package and the clients' packages
 * instrumented. (The continuation loader leaves classes with nothing to rewrite to its parent, and
 * reaches their package-private members through accessors.)
 */
class CallerExceptionTypesTest {
  private static final String[] INSTRUMENTED = {
      "io.weft.protocols.callers", "io.weft.protocols.smtp", "io.weft.protocols.redis", "io.weft.protocols.internal"};

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
    Throwable failure = failure(c, SmtpGreetingTask.class, ScriptedServer.script().send("554 5.3.2 no service\r\n"));
    try {
      throw failure;
    } catch (SmtpReplyException e) {
      assertSame(SmtpReplyException.class, e.getClass());
      assertEquals(554, e.code());
      assertSame(SmtpReply.class, e.reply().getClass());
      assertEquals("5.3.2 no service", e.text());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void redisErrorExceptionIsTheCallersClass(Case c) throws Throwable {
    Throwable failure = failure(c, RedisCallTask.class, ScriptedServer.script().readLines(3).send("-ERR boom\r\n"));
    try {
      throw failure;
    } catch (RedisErrorException e) {
      assertSame(RedisErrorException.class, e.getClass());
      assertEquals("ERR", e.errorCode());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void protocolViolationExceptionIsTheCallersClass(Case c) throws Throwable {
    Throwable failure = failure(c, RedisCallTask.class, ScriptedServer.script().readLines(3).send("?x\r\n"));
    try {
      throw failure;
    } catch (ProtocolViolationException e) {
      assertSame(ProtocolViolationException.class, e.getClass());
    }
  }

  /** What ended the one session of {@code task} against a server playing {@code script}. */
  private static Throwable failure(Case c, Class<? extends SessionTask<?>> task, ScriptedServer.Script script)
      throws Exception {
    assumeTrue(c.mode().kind() != Mode.Kind.VIRTUAL_THREADS || Runtime.version().feature() >= 21, "JDK 21+");
    Connector connector = c.connector().get();
    try (ScriptedServer server = ScriptedServer.start(script, Delivery.WHOLE);
         SessionRunner runner = SessionRunner.builder().mode(c.mode()).connector(connector)
             .address(server.address()).timeout(Timeout.of(20, TimeUnit.SECONDS)).instrument(INSTRUMENTED)
             .build()) {
      @SuppressWarnings("unchecked")
      Class<? extends SessionTask<Object>> type = (Class<? extends SessionTask<Object>>) task;
      RunResult<Object> result = runner.run(type, 1);
      Outcome<Object> o = result.outcome(0);
      if (o.status() != Outcome.Status.FAILED) {
        fail(c + ": " + o);
      }
      return o.failure();
    } finally {
      if (connector instanceof AutoCloseable) {
        ((AutoCloseable) connector).close();
      }
    }
  }
}
