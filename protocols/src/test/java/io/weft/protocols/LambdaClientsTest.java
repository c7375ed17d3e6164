package io.weft.protocols;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.protocols.callers.LambdaExchangeTask;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.netty.SuspendingNettyConnector;
import io.weft.transport.socket.SocketConnector;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A client whose reads run inside a lambda and method references of its own interfaces gives, in
 * continuation mode over both suspending connectors, each of 500 sessions the value SYNC gives it,
 * against a real loopback echo server.
 */
class LambdaClientsTest {
  private static final int SESSIONS = 500;
  private static EchoServer echo;
  private static List<String> sync;

  record Case(String name, Mode mode, Supplier<Connector> connector) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> modes() {
    return Stream.of(
        new Case("CONTINUATIONS(1)/MINA", Mode.continuations(1), SuspendingMinaConnector::tcp),
        new Case("CONTINUATIONS(2)/MINA", Mode.continuations(2), SuspendingMinaConnector::tcp),
        new Case("CONTINUATIONS(1)/Netty", Mode.continuations(1), SuspendingNettyConnector::tcp),
        new Case("CONTINUATIONS(2)/Netty", Mode.continuations(2), SuspendingNettyConnector::tcp));
  }

  @BeforeAll
  static void startAndRunSync() throws Exception {
    echo = EchoServer.tcp();
    sync = run(new Case("SYNC", Mode.SYNC, SocketConnector::new));
  }

  @AfterAll
  static void stop() {
    echo.close();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void readsInsideLambdasGiveEachSessionItsSyncValue(Case c) throws Exception {
    List<String> values = run(c);
    for (int i = 0; i < SESSIONS; i++) {
      assertEquals(sync.get(i), values.get(i), c + ", session " + i);
    }
  }

  private static List<String> run(Case c) throws Exception {
    Connector connector = c.connector().get();
    try (SessionRunner runner = SessionRunner.builder().mode(c.mode()).connector(connector)
        .address(echo.address()).timeout(Timeout.of(30, TimeUnit.SECONDS)).instrument("io.weft.protocols.callers")
        .build()) {
      RunResult<String> result = runner.run(LambdaExchangeTask.class, SESSIONS);
      assertTrue(result.allSucceeded(), () -> c + ": " + result.failures().get(0));
      return result.values();
    } finally {
      if (connector instanceof AutoCloseable) {
        ((AutoCloseable) connector).close();
      }
    }
  }
}
