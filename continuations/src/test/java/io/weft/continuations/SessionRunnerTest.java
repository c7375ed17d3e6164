package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.FailingTask;
import io.weft.continuations.testclient.LineTesterTask;
import io.weft.continuations.testclient.SilentTask;
import io.weft.continuations.testing.PipeConnector;
import io.weft.continuations.testing.PipeEchoServer;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.spi.HeapExhaustion;
import io.weft.transport.spi.WriteWatchdog;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The one runner in every mode, over a suspending pipe transport and over loopback TCP. */
class SessionRunnerTest {
  static final String CLIENT = "io.weft.continuations.testclient";
  static final Timeout FIVE_SECONDS = Timeout.of(5, TimeUnit.SECONDS);

  private final PipeEchoServer pipeServer = new PipeEchoServer(1, TimeUnit.MILLISECONDS);
  private final PipeConnector pipes = new PipeConnector();

  @AfterEach
  void stop() {
    pipes.close();
    pipeServer.close();
  }

  static SessionRunner runner(Mode mode, Connector connector, SocketAddress address, Timeout timeout) {
    return SessionRunner.builder().mode(mode).connector(connector).address(address)
        .timeout(timeout).instrument(CLIENT).build();
  }

  static List<Mode> modes() {
    List<Mode> modes = new ArrayList<>(List.of(Mode.SYNC, Mode.THREADS, Mode.continuations(1), Mode.continuations(2)));
    if (Runtime.version().feature() >= 21) {
      modes.add(Mode.VIRTUAL_THREADS);
    }
    return modes;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void testerGivesTheSameResultsAsSyncOverTheSuspendingPipe(Mode mode) throws Exception {
    List<String> expected;
    try (SessionRunner sync = runner(Mode.SYNC, pipes, pipeServer.address(), FIVE_SECONDS)) {
      expected = sync.run(LineTesterTask.class, 20, 5).values();
    }
    try (SessionRunner runner = runner(mode, pipes, pipeServer.address(), FIVE_SECONDS)) {
      RunResult<String> result = runner.run(LineTesterTask.class, 20, 5);
      assertTrue(result.allSucceeded(), mode + ": " + result.failures());
      assertEquals(expected, result.values(), mode.toString());
      assertEquals("7:5:" + 5 * "session 7 line 0".length(), result.outcome(7).value());
    }
    assertEquals(0, pipes.openTransports());
  }

  @Test
  void aHeapWatchSettingOutOfRangeIsRefusedWithItsNameAndTheRunnerStaysFree() throws Exception {
    String property = "io.weft.transport.gcTimePercent";
    try (SessionRunner runner = runner(Mode.SYNC, pipes, pipeServer.address(), FIVE_SECONDS)) {
      for (String wrong : List.of("101", "-5", "fifty")) {
        System.setProperty(property, wrong);
        try {
          IllegalStateException e = assertThrows(IllegalStateException.class,
              () -> runner.run(LineTesterTask.class, 2, 1));
          assertTrue(e.getMessage().startsWith("system property " + property + " is \"" + wrong + "\""), e.getMessage());
        } finally {
          System.clearProperty(property);
        }
      }
      // Refused before it ran: the same runner runs once the setting is right.
      assertTrue(runner.run(LineTesterTask.class, 2, 1).allSucceeded());
    }
  }

  @Test
  void runnersSharingAGivenLoaderRunTheSameRewrittenClassesAndSuspend() throws Exception {
    ContinuationClassLoader shared = new ContinuationClassLoader(SessionRunnerTest.class.getClassLoader(),
        List.of(CLIENT));
    List<String> expected;
    try (SessionRunner runner = runner(Mode.SYNC, pipes, pipeServer.address(), FIVE_SECONDS)) {
      expected = runner.run(LineTesterTask.class, 20, 5).values();
    }
    Class<?> first = null;
    for (int round = 0; round < 2; round++) {
      long suspendsBefore = pipes.suspends();
      try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(pipes)
          .address(pipeServer.address()).timeout(FIVE_SECONDS).classLoader(shared).build()) {
        assertTrue(runner.classLoader() == shared);
        RunResult<String> result = runner.run(LineTesterTask.class, 20, 5);
        assertTrue(result.allSucceeded(), result.failures().toString());
        assertEquals(expected, result.values());
      }
      assertTrue(pipes.suspends() > suspendsBefore, "round " + round + " never suspended");
      Class<?> loaded = Class.forName(LineTesterTask.class.getName(), false, shared);
      assertTrue(first == null || first == loaded, "the shared loader defines the task class once");
      first = loaded;
    }
    assertTrue(shared.isInstrumented(LineTesterTask.class.getName()));
    IllegalStateException both = assertThrows(IllegalStateException.class, () -> SessionRunner.builder()
        .mode(Mode.continuations(1)).connector(pipes).address(pipeServer.address()).classLoader(shared)
        .instrument(CLIENT).build());
    assertTrue(both.getMessage().contains("choose one"), both.getMessage());
    assertThrows(IllegalStateException.class, () -> SessionRunner.builder().mode(Mode.continuations(1))
        .connector(pipes).address(pipeServer.address()).classLoader(shared).alreadyRewritten().build());
  }

  static List<Mode> blockingModes() {
    List<Mode> blocking = new ArrayList<>(modes());
    blocking.removeIf(mode -> mode.kind() == Mode.Kind.CONTINUATIONS);
    return blocking;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("blockingModes")
  void testerGivesTheSameResultsOverLoopbackTcpInTheBlockingModes(Mode mode) throws Exception {
    List<String> overPipe;
    try (SessionRunner runner = runner(Mode.continuations(1), pipes, pipeServer.address(), FIVE_SECONDS)) {
      overPipe = runner.run(LineTesterTask.class, 10, 3).values();
    }
    try (EchoServer tcp = EchoServer.tcp(); SocketConnector sockets = new SocketConnector();
         SessionRunner runner = runner(mode, sockets, tcp.address(), FIVE_SECONDS)) {
      RunResult<String> result = runner.run(LineTesterTask.class, 10, 3);
      assertEquals(overPipe, result.values(), mode + ": " + result.failures());
    }
  }

  @Test
  void wakeUpsThatRaceTheSuspendNeverLoseOrDoubleRunASession() throws Exception {
    // No delay: the server thread wakes each read while the worker may still be unwinding it.
    try (PipeEchoServer racing = new PipeEchoServer(0, TimeUnit.MILLISECONDS);
         SessionRunner runner = runner(Mode.continuations(2), pipes, racing.address(), FIVE_SECONDS)) {
      RunResult<String> result = runner.run(LineTesterTask.class, 2000, 5);
      assertTrue(result.allSucceeded(), result.failures().toString());
      for (int i = 0; i < 2000; i++) {
        assertEquals(i + ":5:" + 5 * ("session " + i + " line 0").length(), result.outcome(i).value());
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void aSessionThatThrowsLeavesTheOthersUnaffected(Mode mode) throws Exception {
    try (SessionRunner runner = runner(mode, pipes, pipeServer.address(), FIVE_SECONDS)) {
      RunResult<String> result = runner.run(FailingTask.class, 9);
      for (Outcome<String> o : result.outcomes()) {
        if (o.index() % 3 == 1) {
          assertEquals(Outcome.Status.FAILED, o.status(), mode + " " + o);
          assertInstanceOf(IllegalStateException.class, o.failure());
          assertEquals("session " + o.index() + " fails on purpose", o.failure().getMessage());
        } else {
          assertEquals("hello " + o.index() + "/bye " + o.index(), o.value(), mode + " " + o);
        }
      }
      assertEquals(3, result.count(Outcome.Status.FAILED));
    }
  }

  @Test
  void readTimeoutFiresInContinuationModeAsATimerNotABlockedThread() throws Exception {
    Timeout shortTimeout = Timeout.of(200, TimeUnit.MILLISECONDS);
    try (SessionRunner runner = runner(Mode.continuations(1), pipes, pipeServer.address(), shortTimeout)) {
      RunResult<String> result = runner.run(SilentTask.class, 50);
      assertEquals(50, result.count(Outcome.Status.FAILED), result.toString());
      for (Outcome<String> o : result.outcomes()) {
        assertInstanceOf(TransportTimeoutException.class, o.failure());
        assertTrue(o.failure().getMessage().contains("read timed out"), o.failure().getMessage());
      }
    }
  }

  static List<Mode> cancelModes() {
    return List.of(Mode.continuations(2), Mode.THREADS);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cancelModes")
  void cancellingMidRunLeavesNoThreadNoContinuationNoTransport(Mode mode) throws Exception {
    SessionRunner runner = runner(mode, pipes, pipeServer.address(), Timeout.NONE);
    Thread canceller = new Thread(() -> {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (pipes.openTransports() < 20 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      runner.cancel();
    });
    canceller.start();
    // SilentTask waits forever without a timeout: only cancel ends these sessions.
    RunResult<String> result = runner.run(SilentTask.class, 100);
    canceller.join();
    runner.close();
    assertEquals(100, result.count(Outcome.Status.CANCELLED), mode + ": " + result);
    assertEquals(0, pipes.openTransports(), mode.toString());
    assertTrue(weftThreads().isEmpty(), mode + " left " + weftThreads());
  }

  @Test
  void aBlockingConnectorIsRefusedInContinuationModeUnlessAllowed() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); SocketConnector sockets = new SocketConnector();
         SessionRunner runner = runner(Mode.continuations(1), sockets, tcp.address(), FIVE_SECONDS)) {
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> runner.run(LineTesterTask.class, 1, 1));
      assertTrue(e.getMessage().contains("SocketConnector is a blocking connector"), e.getMessage());
    }
  }

  @Test
  @EnabledForJreRange(max = JRE.JAVA_20)
  void virtualThreadsSayPlainlyThatTheyNeedJdk21() {
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
        () -> runner(Mode.VIRTUAL_THREADS, pipes, pipeServer.address(), FIVE_SECONDS));
    assertTrue(e.getMessage().contains("needs JDK 21"), e.getMessage());
    assertTrue(e.getMessage().contains("this is JDK " + Runtime.version().feature()), e.getMessage());
    assertTrue(e.getMessage().contains("Use THREADS or CONTINUATIONS"), e.getMessage());
  }

  @Test
  @EnabledForJreRange(min = JRE.JAVA_21)
  void virtualThreadsRunTheSameTesterOverLoopbackTcp() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); SocketConnector sockets = new SocketConnector();
         SessionRunner runner = runner(Mode.VIRTUAL_THREADS, sockets, tcp.address(), FIVE_SECONDS)) {
      RunResult<String> result = runner.run(LineTesterTask.class, 50, 3);
      assertTrue(result.allSucceeded(), result.failures().toString());
      assertEquals("49:3:" + 3 * "session 49 line 0".length(), result.outcome(49).value());
    }
  }

  static List<String> weftThreads() {
    List<String> names = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      // Not the write watchdog: one thread for the whole process, not a run's, which ends by itself
      // a second after the last timed socket write (other tests' sockets start it). Nor the heap's
      // collection-time watch: one for the process, asleep while no run watches.
      // Nor the aborted runs' canceller and its spare while idle: two for the process, made with
      // the first run, parked while no aborted run is served (one stalled in a close counts).
      if (t.isAlive() && t.getName().startsWith("weft-") && !t.getName().equals(WriteWatchdog.THREAD_NAME)
          && !t.getName().equals(HeapExhaustion.WATCH_THREAD_NAME) && !AbortCancels.isIdle(t)) {
        names.add(t.getName());
      }
    }
    return names;
  }
}
