package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.NotInstrumentedError;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.mina.outside.AfterSwallowExchange;
import io.weft.transport.mina.testclient.HiddenExchangeTask;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The MINA and Netty suspending transports reach the task without the runtime's checked wrapper
 * (one rewritten frame less on every suspend), and make continuation mode's entry check themselves:
 * a frame that was not rewritten and swallowed a suspend is stopped at its next transport call,
 * whichever it is, before that call does anything (nothing buffered, nothing sent, no bytes
 * taken), over real loopback TCP. The session ends with {@code NotInstrumentedError} naming that
 * frame, as in every other continuation transport.
 */
class SwallowedSuspendOverTcpTest {
  private static final String CLIENT = "io.weft.transport.mina.testclient";
  /**
   * Round trips on the I/O thread, each with a suspend, before the helper's: more than the run's
   * first 64 suspends, which are checked frame by frame (see HiddenExchangeTask).
   */
  private static final int ROUNDS = 70;

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (SuspendingLoops loops : SuspendingLoops.values()) {
      for (String call : AfterSwallowExchange.CALLS) {
        cases.add(Arguments.of(loops, call));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void theCallAfterASwallowedSuspendIsRefusedBeforeItRuns(SuspendingLoops loops, String call) throws Exception {
    List<String> received = new CopyOnWriteArrayList<>();
    CountDownLatch served = new CountDownLatch(1);
    AfterSwallowExchange.RETURNED.clear();
    AfterSwallowExchange.next = call;
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Connector connector = loops.connectors.get()) {
      Thread echo = new Thread(() -> serve(server, received, served), "echo");
      echo.setDaemon(true);
      echo.start();
      RunResult<String> result;
      try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
          .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()))
          .timeout(Timeout.of(20, TimeUnit.SECONDS)).instrument(CLIENT).build()) {
        result = runner.run(HiddenExchangeTask.class, 1, ROUNDS);
      }
      Outcome<String> outcome = result.outcome(0);
      assertEquals(Outcome.Status.FAILED, outcome.status(), () -> String.valueOf(outcome.failure()));
      NotInstrumentedError e = assertInstanceOf(NotInstrumentedError.class, outcome.failure());
      assertEquals(AfterSwallowExchange.class.getName(), e.className(), e.getMessage());
      assertEquals("exchange", e.methodName(), e.getMessage());
      // Its read came back empty-handed (the suspend it swallowed); the call after it never returned.
      assertEquals(List.of("read null"), AfterSwallowExchange.RETURNED, e.getMessage());
      // And sent nothing: the peer got the round trips and "one" (unless the close's reset came
      // first), then the session's close; no "two", no TLS hello.
      assertTrue(served.await(20, TimeUnit.SECONDS), "the peer never saw the connection end");
      int rounds = 0;
      while (rounds < received.size() && received.get(rounds).equals("round " + rounds)) {
        rounds++;
      }
      assertTrue(rounds >= ROUNDS, () -> "rounds " + received);
      List<String> after = received.subList(rounds, received.size());
      assertEquals(after.isEmpty() ? List.of() : List.of("one"), after);
    }
  }

  /** Echoes the lines of one connection, recording them, until it ends. */
  private static void serve(ServerSocket server, List<String> received, CountDownLatch served) {
    try (Socket s = server.accept();
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1))) {
      OutputStream out = s.getOutputStream();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        received.add(line);
        out.write((line + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
      }
    } catch (IOException e) {
      // The client's close may come as a reset: the end, as a clean one is.
    } finally {
      served.countDown();
    }
  }
}
