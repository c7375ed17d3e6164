package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.LambdaTask;
import io.weft.continuations.testclient.LineTesterTask;
import io.weft.continuations.testclient.HiddenHelperTask;
import io.weft.continuations.testclient.ReaderTask;
import io.weft.continuations.testing.PipeConnector;
import io.weft.continuations.testing.PipeEchoServer;
import io.weft.transport.Timeout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A session that would suspend through a frame that was not rewritten fails at once, naming the
 * frame: refused at load time where the analysis can see it, caught at run time otherwise, and
 * named at the first suspend in debug mode. Never a hang, never a wrong result.
 */
class FailFastTest {
  // 50 ms, not 1: every read must really wait (suspend) even on a loaded 2-core machine, or a
  // swallowed suspend is only caught, unnamed, at the session's end.
  private final PipeEchoServer server = new PipeEchoServer(50, TimeUnit.MILLISECONDS);
  private final PipeConnector pipes = new PipeConnector();

  @AfterEach
  void stop() {
    pipes.close();
    server.close();
  }

  private SessionRunner runner(boolean debug) {
    return SessionRunner.builder().mode(Mode.continuations(1)).connector(pipes).address(server.address())
        .timeout(Timeout.of(10, TimeUnit.SECONDS)).instrument(SessionRunnerTest.CLIENT).debugFrames(debug).build();
  }

  @Test
  void transportUnderABufferedReaderIsRefusedAtLoadTimeNamingTheFrame() throws Exception {
    try (SessionRunner runner = runner(false)) {
      NotInstrumentableException e = assertThrows(NotInstrumentableException.class,
          () -> runner.run(ReaderTask.class, 3));
      InstrumentationReport.Problem p = first(e.problems());
      assertEquals("io.weft.continuations.testclient.TransportInputStream", p.className());
      assertEquals("read", p.methodName());
      assertTrue(e.getMessage().contains("overrides java.io.InputStream.read"), e.getMessage());
      assertTrue(e.getMessage().contains("THREADS or VIRTUAL_THREADS"), e.getMessage());
      assertEquals(0, pipes.openTransports());
    }
  }

  @Test
  void suspendingLambdaIsRefusedAtLoadTimeNamingTheMethodThatMakesIt() throws Exception {
    try (SessionRunner runner = runner(false)) {
      NotInstrumentableException e = assertThrows(NotInstrumentableException.class,
          () -> runner.run(LambdaTask.class, 1));
      InstrumentationReport.Problem p = first(e.problems());
      assertEquals("io.weft.continuations.testclient.LambdaTask", p.className());
      assertEquals("run", p.methodName());
      assertTrue(p.message().contains("it is handed to java.util.List.sort"), p.message());
    }
  }

  @Test
  void problemsElsewhereInTheScopeDoNotStopATaskThatCannotReachThem() throws Exception {
    try (SessionRunner runner = runner(false)) {
      assertTrue(runner.classLoader().report().problems().size() >= 2);
      assertTrue(runner.run(LineTesterTask.class, 2, 1).allSucceeded());
    }
  }

  @Test
  void frameOutsideTheScopeIsCaughtAtRunTimeAndNamed() throws Exception {
    try (SessionRunner runner = runner(false)) {
      RunResult<String> result = runner.run(HiddenHelperTask.class, 4);
      assertEquals(4, result.count(Outcome.Status.FAILED), result.outcomes().toString());
      for (Outcome<String> o : result.outcomes()) {
        NotInstrumentedError e = assertInstanceOf(NotInstrumentedError.class, o.failure());
        assertEquals("io.weft.continuations.testoutside.HelperExchanger", e.className(), e.getMessage());
        assertEquals("exchange", e.methodName(), e.getMessage());
        assertTrue(e.getMessage().contains("add its package to the instrumented packages"), e.getMessage());
      }
      assertEquals(0, pipes.openTransports());
    }
  }

  @Test
  void debugModeNamesTheFrameAtTheFirstSuspend() throws Exception {
    try (SessionRunner runner = runner(true)) {
      RunResult<String> result = runner.run(HiddenHelperTask.class, 2);
      for (Outcome<String> o : result.outcomes()) {
        NotInstrumentedError e = assertInstanceOf(NotInstrumentedError.class, o.failure());
        assertEquals("io.weft.continuations.testoutside.HelperExchanger", e.className(), e.getMessage());
        assertEquals("exchange", e.methodName());
        assertTrue(e.getMessage().contains("called from io.weft.continuations.testclient.HiddenHelperTask.run"),
            e.getMessage());
      }
    }
  }

  @Test
  void debugModePassesWhenEveryFrameIsRewritten() throws Exception {
    try (SessionRunner runner = runner(true)) {
      RunResult<String> result = runner.run(LineTesterTask.class, 5, 3);
      assertTrue(result.allSucceeded(), result.failures().toString());
    }
  }

  private static InstrumentationReport.Problem first(List<InstrumentationReport.Problem> problems) {
    assertTrue(!problems.isEmpty());
    return problems.get(0);
  }
}
