package io.weft.protocols.tester;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * 10,000 line-tester sessions at once, on one worker, on {@code SuspendingMinaTransport} against
 * the MINA echo server answering each line after 1 ms over the in-VM pipe (10,000 loopback TCP
 * pairs would need 20,000 descriptors): all complete, and the JVM never has 50 live threads.
 * Prints the figures, including how many waits suspended; asserts no timing.
 */
class TenThousandContinuingSessionsTest {
  private static final int SESSIONS = 10_000;
  private static final int TRANSACTIONS = 3;

  @Test
  void tenThousandConcurrentSessionsOnMinaCompleteOnOneWorkerUnderFiftyThreads() throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    try (EchoServer echo = EchoServer.builder().delay(1, TimeUnit.MILLISECONDS).startVmPipe();
        SuspendingMinaConnector connector = SuspendingMinaConnector.vmPipe();
        SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1))
            .connector(connector).address(echo.address())
            .timeout(Timeout.of(60, TimeUnit.SECONDS))
            .instrument("io.weft.protocols").build()) {
      // The JVM's own peak, not a sampler that could miss one: reset now, read after the run.
      threads.resetPeakThreadCount();
      RunResult<Integer> result = runner.run(LineTesterTask.class, SESSIONS, TRANSACTIONS);
      int peak = threads.getPeakThreadCount();
      long exchanges = (long) SESSIONS * TRANSACTIONS;
      System.out.println(result + "; peak live threads " + peak + "; " + exchanges + " exchanges, "
          + connector.suspends() + " suspends, " + connector.immediate() + " waits not needed");
      assertTrue(result.allSucceeded(), result.failures().stream().limit(5).toList().toString());
      assertEquals(SESSIONS, result.values().size());
      assertEquals(exchanges, echo.linesEchoed());
      assertTrue(peak < 50, "peak live threads " + peak);
      assertEquals(0, connector.openCount());
    }
  }
}
