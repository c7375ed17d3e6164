package io.weft.protocols.tester;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Timeout;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.mina.MinaConnector;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The experiment's client, unchanged and unannotated, run as continuations on
 * {@code SuspendingMinaTransport} by one worker, against the MINA echo server over TCP and the
 * in-VM pipe: the same results as SYNC, timeouts that are timers, failures that stay in their
 * session.
 */
class LineTesterContinuationsTest {
  private static final String CLIENT = "io.weft.protocols";
  private static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);

  private static EchoServer start(boolean tcp, EchoServer.Builder builder) throws IOException {
    return tcp ? builder.startTcp() : builder.startVmPipe();
  }

  private static SuspendingMinaConnector continuing(boolean tcp) {
    return tcp ? SuspendingMinaConnector.tcp() : SuspendingMinaConnector.vmPipe();
  }

  private static <T> RunResult<T> run(Mode mode, Connector connector, EchoServer echo, Timeout timeout,
      Class<? extends io.weft.transport.SessionTask<T>> task, int sessions, Object... args) throws Exception {
    try (SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector)
        .address(echo.address()).timeout(timeout).instrument(CLIENT).build()) {
      return runner.run(task, sessions, args);
    }
  }

  @ParameterizedTest(name = "tcp={0}")
  @ValueSource(booleans = {false, true})
  void continuationsGiveExactlyTheResultsOfSync(boolean tcp) throws Exception {
    int sessions = 200;
    int transactions = 5;
    RunResult<Integer> sync;
    RunResult<Integer> continued;
    long suspends;
    long immediate;
    try (EchoServer echo = start(tcp, EchoServer.builder().delay(1, TimeUnit.MILLISECONDS))) {
      try (MinaConnector blocking = tcp ? MinaConnector.tcp() : MinaConnector.vmPipe()) {
        sync = run(Mode.SYNC, blocking, echo, TEN_SECONDS, LineTesterTask.class, sessions, transactions);
      }
      try (SuspendingMinaConnector connector = continuing(tcp)) {
        continued = run(Mode.continuations(1), connector, echo, TEN_SECONDS, LineTesterTask.class,
            sessions, transactions);
        suspends = connector.suspends();
        immediate = connector.immediate();
        assertEquals(0, connector.openCount(), "every transport closed");
      }
      assertEquals(2L * sessions * transactions, echo.linesEchoed(), "SYNC and continuations each echoed all");
    }
    assertTrue(sync.allSucceeded(), sync.failures().toString());
    assertTrue(continued.allSucceeded(), continued.failures().stream().limit(3).toList().toString());
    assertEquals(sync.values(), continued.values());
    System.out.printf("%s: %d exchanges, %d suspends, %d waits not needed%n", tcp ? "TCP" : "in-VM pipe",
        sessions * transactions, suspends, immediate);
    // Replies come 1 ms late: nearly every read waits, so it must have suspended.
    assertTrue(suspends >= sessions, "suspends " + suspends);
  }

  @ParameterizedTest(name = "tcp={0}")
  @ValueSource(booleans = {false, true})
  void readTimeoutsOfSessionsWaitingAtOnceFireTogetherOnOneWorker(boolean tcp) throws Exception {
    long timeoutMs = 1000;
    int sessions = 20;
    Timeout timeout = Timeout.of(timeoutMs, TimeUnit.MILLISECONDS);
    RunResult<Integer> result;
    int openWhileAllWaited;
    ExecutorService background = Executors.newSingleThreadExecutor();
    try (EchoServer echo = start(tcp, EchoServer.builder());
        SuspendingMinaConnector connector = continuing(tcp)) {
      echo.hold(); // no reply ever: every read can only time out
      Future<RunResult<Integer>> run = background.submit(
          () -> run(Mode.continuations(1), connector, echo, timeout, LineTesterTask.class, sessions, 1));
      // Ordering, not speed: every session has sent its line (and waits for the reply) while
      // none has timed out and closed yet. Had one worker blocked on each read in turn, the
      // first sessions would be closed before the last one connected.
      while (echo.linesReceived() < sessions && !run.isDone()) {
        Thread.onSpinWait();
      }
      openWhileAllWaited = echo.openSessions();
      result = run.get();
      assertEquals(0, connector.openCount(), "timed-out transports are closed");
    } finally {
      background.shutdownNow();
    }
    assertEquals(sessions, openWhileAllWaited, "sessions open on the server while all of them waited");
    assertEquals(sessions, result.count(Outcome.Status.FAILED), result.toString());
    for (Outcome<Integer> outcome : result.outcomes()) {
      assertTrue(outcome.failure() instanceof TransportTimeoutException, String.valueOf(outcome.failure()));
    }
    // A lower bound only: no timeout fires early.
    long wallMs = TimeUnit.NANOSECONDS.toMillis(result.wallNanos());
    assertTrue(wallMs >= timeoutMs, "20 read timeouts of " + timeoutMs + " ms took " + wallMs + " ms");
  }

  @ParameterizedTest(name = "tcp={0}")
  @ValueSource(booleans = {false, true})
  void aSessionThatFailsLeavesTheOthersUnaffected(boolean tcp) throws Exception {
    int sessions = 50;
    EchoServer.Builder wrongForSessionSeven = EchoServer.builder().delay(1, TimeUnit.MILLISECONDS)
        .replies(line -> line.equals("weft 7 2") ? "weft 7 two" : line);
    RunResult<Integer> result;
    try (EchoServer echo = start(tcp, wrongForSessionSeven);
        SuspendingMinaConnector connector = continuing(tcp)) {
      result = run(Mode.continuations(1), connector, echo, TEN_SECONDS, LineTesterTask.class, sessions, 4);
      assertEquals(0, connector.openCount());
    }
    assertEquals(sessions - 1, result.count(Outcome.Status.SUCCEEDED), result.toString());
    Throwable failure = result.outcome(7).failure();
    assertTrue(failure instanceof ProtocolViolationException, String.valueOf(failure));
    assertEquals("transaction 2: sent \"weft 7 2\", got back \"weft 7 two\"", failure.getMessage());
    for (int i = 0; i < sessions; i++) {
      if (i != 7) {
        assertEquals(4, result.outcome(i).value());
      }
    }
  }
}
