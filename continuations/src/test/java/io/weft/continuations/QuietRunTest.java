package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.FailingTask;
import io.weft.continuations.testclient.SyncBlockTask;
import io.weft.continuations.testing.MdcTestProvider;
import io.weft.continuations.testing.PipeConnector;
import io.weft.continuations.testing.PipeEchoServer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * Quiet by default: a run whose tasks throw, over a package that also holds classes that can
 * never run as continuations but that the task never reaches, logs nothing at WARN or ERROR.
 * What went wrong is in the run's result and the loader's report, both readable through the API.
 */
class QuietRunTest {
  private final PipeEchoServer pipeServer = new PipeEchoServer(1, TimeUnit.MILLISECONDS);
  private final PipeConnector pipes = new PipeConnector();

  @AfterEach
  void stop() {
    pipes.close();
    pipeServer.close();
  }

  @Test
  void theCaptureSeesWarnings() {
    int mark = MdcTestProvider.mark();
    LoggerFactory.getLogger(QuietRunTest.class).warn("a warning on purpose");
    assertEquals(List.of("WARN " + QuietRunTest.class.getName() + ": a warning on purpose"),
        MdcTestProvider.warningsSince(mark));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.weft.continuations.SessionRunnerTest#modes")
  void aRunWithFailingSessionsAndUnreachableProblemClassesLogsNoWarningOrError(Mode mode) throws Exception {
    int mark = MdcTestProvider.mark();
    try (SessionRunner runner = SessionRunnerTest.runner(mode, pipes, pipeServer.address(),
        SessionRunnerTest.FIVE_SECONDS)) {
      RunResult<String> result = runner.run(FailingTask.class, 9);

      assertEquals(3, result.count(Outcome.Status.FAILED), mode + ": " + result);
      for (Outcome<String> o : result.failures()) {
        assertInstanceOf(IllegalStateException.class, o.failure(), mode + " " + o);
      }
      if (mode.kind() == Mode.Kind.CONTINUATIONS) {
        // The package does hold problems (a task that notifies inside a synchronized block that
        // can suspend), kept in the loader's report rather than logged.
        InstrumentationReport report = runner.classLoader().report();
        assertFalse(runner.classLoader().problemsFor(SyncBlockTask.class.getName()).isEmpty(), report.toString());
        assertTrue(report.problems().size() >= 1);
      }
    }
    assertEquals(List.of(), MdcTestProvider.warningsSince(mark), mode.toString());
  }
}
