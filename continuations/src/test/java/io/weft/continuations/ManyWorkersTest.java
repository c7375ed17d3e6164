package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.LineTesterTask;
import io.weft.continuations.testing.YieldingConnector;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The ready queue with more workers than cores: every wake-up comes from another thread while
 * workers run, park and are unparked, so a lost wake-up shows as a hang (the class timeout) and
 * a mixed-up resume as a wrong echo. Afterwards no worker or timer thread is left.
 */
class ManyWorkersTest {
  @Test
  void everyWakeUpFromAnotherThreadResumesItsSessionOnFourWorkers() throws Exception {
    int sessions = 400;
    int lines = 100;
    try (YieldingConnector connector = new YieldingConnector();
         SessionRunner runner = runner(connector, Mode.continuations(4))) {
      for (int round = 0; round < 3; round++) {
        runAndCheckEchoes(runner, sessions, lines);
        List<String> left = Thread.getAllStackTraces().keySet().stream()
            .filter(Thread::isAlive).map(Thread::getName)
            .filter(n -> n.startsWith("weft-worker-") || n.equals("weft-timer"))
            .collect(Collectors.toList());
        assertEquals(List.of(), left, "threads left after the run");
      }
    }
  }

  @Test
  void aWaitWokenByTwoThreadsAndTheTimerAtOnceResumesItsSessionOnce() throws Exception {
    // Each wake-up is run by two waker threads, while the session may still be unwinding its
    // suspend, and a 1 µs timeout sets the timer against them: every wait has up to three
    // endings racing, of which exactly one may make the fiber ready. A second would run the
    // session on two threads at once, which fails it or mixes up its echoes.
    int sessions = 200;
    int lines = 50;
    try (YieldingConnector connector = new YieldingConnector(2, TimeUnit.MICROSECONDS.toNanos(1));
         SessionRunner runner = runner(connector, Mode.continuations(2))) {
      for (int round = 0; round < 3; round++) {
        runAndCheckEchoes(runner, sessions, lines);
      }
    }
  }

  private static SessionRunner runner(YieldingConnector connector, Mode mode) {
    return SessionRunner.builder().mode(mode).connector(connector)
        .address(InetSocketAddress.createUnresolved("yield", 1)).timeout(Timeout.NONE)
        .instrument(SessionRunnerTest.CLIENT).build();
  }

  /** Every session succeeded and echoed its own lines (a mixed-up resume echoes another's). */
  private static void runAndCheckEchoes(SessionRunner runner, int sessions, int lines)
      throws InterruptedException {
    RunResult<String> result = runner.run(LineTesterTask.class, sessions, lines);
    assertTrue(result.allSucceeded(), result.failures().toString());
    for (Outcome<String> outcome : result.outcomes()) {
      assertTrue(outcome.value().startsWith(outcome.index() + ":" + lines + ":"), outcome.value());
    }
  }
}
