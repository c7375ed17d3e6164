package io.weft.protocols.tester;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.mina.MinaConnector;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LineTesterTest {
  private static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);

  interface ServerFactory {
    EchoServer start(EchoServer.Builder builder) throws IOException;
  }

  /** Every transport against the server it can reach. */
  static Stream<Arguments> setups() {
    ServerFactory tcp = EchoServer.Builder::startTcp;
    ServerFactory pipe = EchoServer.Builder::startVmPipe;
    Supplier<Connector> socket = SocketConnector::new;
    Supplier<Connector> minaTcp = MinaConnector::tcp;
    Supplier<Connector> minaPipe = MinaConnector::vmPipe;
    return Stream.of(
        Arguments.of("SocketTransport over TCP", tcp, socket),
        Arguments.of("MinaTransport over TCP", tcp, minaTcp),
        Arguments.of("MinaTransport over the in-VM pipe", pipe, minaPipe));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void runsEveryTransactionAgainstAnEchoServerThenCloses(String name, ServerFactory server,
      Supplier<Connector> connectors) throws Exception {
    try (EchoServer echo = server.start(EchoServer.builder()); Connector connector = connectors.get()) {
      Transport transport = connector.connect(echo.address(), TEN_SECONDS);
      assertEquals(10, new LineTester(transport, "a").run(10));
      assertFalse(transport.isOpen(), "the tester closes its transport");
      assertEquals(10, echo.linesEchoed());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void taskRunsManySessionsEachWithItsOwnLines(String name, ServerFactory server,
      Supplier<Connector> connectors) throws Exception {
    LineTesterTask task = new LineTesterTask(10);
    try (EchoServer echo = server.start(EchoServer.builder()); Connector connector = connectors.get()) {
      for (int session = 0; session < 50; session++) {
        try (Transport transport = connector.connect(echo.address(), TEN_SECONDS)) {
          assertEquals(10, task.run(transport, session));
        }
      }
      assertEquals(500, echo.linesEchoed());
      assertEquals(50, echo.sessionsOpened());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void delayedRepliesStillMatch(String name, ServerFactory server, Supplier<Connector> connectors)
      throws Exception {
    try (EchoServer echo = server.start(EchoServer.builder().delay(1, TimeUnit.MILLISECONDS));
        Connector connector = connectors.get()) {
      Transport transport = connector.connect(echo.address(), TEN_SECONDS);
      assertEquals(5, new LineTester(transport, "slow").run(5));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void aWrongEchoIsAProtocolViolationQuotingTheReply(String name, ServerFactory server,
      Supplier<Connector> connectors) throws Exception {
    EchoServer.Builder wrong = EchoServer.builder()
        .replies(line -> line.endsWith(" 2") ? line + "\t!" : line);
    try (EchoServer echo = server.start(wrong); Connector connector = connectors.get()) {
      Transport transport = connector.connect(echo.address(), TEN_SECONDS);
      ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
          () -> new LineTester(transport, "w").run(5));
      assertEquals("transaction 2: sent \"weft w 2\", got back \"weft w 2\\t!\"", e.getMessage());
      assertFalse(transport.isOpen(), "closed after a failure too");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void aServerThatHangsUpBeforeReplyingIsAnEndOfStream(String name, ServerFactory server,
      Supplier<Connector> connectors) throws Exception {
    // "weft x 0" is 8 bytes: over the server's limit, so it closes the session unanswered.
    try (EchoServer echo = server.start(EchoServer.builder().maxLineLength(4));
        Connector connector = connectors.get()) {
      Transport transport = connector.connect(echo.address(), TEN_SECONDS);
      IOException e = assertThrows(IOException.class, () -> new LineTester(transport, "x").run(3));
      assertTrue(e instanceof EOFException || !(e instanceof ProtocolViolationException), e.toString());
    }
  }

  @Test
  void theLatencyProbeHearsEachCheckedExchangeOnceWithItsStartTime() throws Exception {
    List<Long> starts = new ArrayList<>();
    long before = System.nanoTime();
    try (EchoServer echo = EchoServer.vmPipe(); MinaConnector connector = MinaConnector.vmPipe()) {
      Transport transport = connector.connect(echo.address(), TEN_SECONDS);
      assertEquals(4, new LineTesterTask(4, starts::add).run(transport, 7));
    }
    assertEquals(4, starts.size(), starts.toString());
    for (int i = 0; i < starts.size(); i++) {
      assertTrue(starts.get(i) - before >= 0, "a start is taken during the run");
      assertTrue(i == 0 || starts.get(i) - starts.get(i - 1) >= 0, "in exchange order: " + starts);
    }
  }

  @Test
  void aWrongEchoIsNotReportedToTheLatencyProbe() throws Exception {
    List<Long> starts = new ArrayList<>();
    try (EchoServer echo = EchoServer.builder().replies(line -> line.endsWith(" 1") ? "x" : line).startVmPipe();
        MinaConnector connector = MinaConnector.vmPipe()) {
      Transport transport = connector.connect(echo.address(), TEN_SECONDS);
      assertThrows(ProtocolViolationException.class, () -> new LineTesterTask(3, starts::add).run(transport, 7));
    }
    assertEquals(1, starts.size(), "only exchange 0 was checked: " + starts);
  }

  @Test
  void zeroTransactionsJustClose() throws Exception {
    try (EchoServer echo = EchoServer.vmPipe(); MinaConnector connector = MinaConnector.vmPipe()) {
      Transport transport = connector.connect(echo.address(), TEN_SECONDS);
      assertEquals(0, new LineTesterTask(0).run(transport, 7));
      assertFalse(transport.isOpen());
    }
  }

  @Test
  void badArgumentsAreRejectedWithTheirValue() throws Exception {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new LineTesterTask(-1));
    assertEquals("transactions < 0: -1", e.getMessage());
    try (EchoServer echo = EchoServer.vmPipe(); MinaConnector connector = MinaConnector.vmPipe()) {
      Transport transport = connector.connect(echo.address(), TEN_SECONDS);
      e = assertThrows(IllegalArgumentException.class, () -> new LineTester(transport, "s").run(-3));
      assertEquals("transactions < 0: -3", e.getMessage());
      transport.close();
    }
  }
}
