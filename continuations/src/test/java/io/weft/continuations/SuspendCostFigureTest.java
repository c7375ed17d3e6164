package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.LineTesterTask;
import io.weft.continuations.testing.YieldingConnector;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Prints what one suspend + wake-up + resume costs through the whole scheduler (ready queue,
 * worker, timer-free wait), with 5 rewritten frames of client code and 4 of Weft on the path.
 * A figure for the README, not an assertion: timing is never asserted.
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = TimeUnit.SECONDS)
class SuspendCostFigureTest {
  @Test
  void printsTheCostOfASuspendAndResume() throws Exception {
    int sessions = 1000;
    int lines = 200;
    try (YieldingConnector connector = new YieldingConnector();
         SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
             .address(InetSocketAddress.createUnresolved("yield", 1)).timeout(Timeout.NONE)
             .instrument(SessionRunnerTest.CLIENT).build()) {
      runner.run(LineTesterTask.class, sessions, lines); // warm-up
      for (int round = 0; round < 3; round++) {
        RunResult<String> result = runner.run(LineTesterTask.class, sessions, lines);
        assertTrue(result.allSucceeded(), result.failures().toString());
        double perSuspend = (double) result.wallNanos() / ((long) sessions * lines);
        System.out.printf("suspend+wake+resume through the scheduler: %.0f ns per exchange"
            + " (%d sessions x %d lines, CONTINUATIONS(1), JDK %s, %d cores)%n",
            perSuspend, sessions, lines, Runtime.version(), Runtime.getRuntime().availableProcessors());
      }
    }
  }
}
