package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.LineTesterTask;
import io.weft.continuations.testing.PipeConnector;
import io.weft.continuations.testing.PipeEchoServer;
import io.weft.transport.Timeout;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * 10,000 tester sessions at once against an echo server that answers each line after 1 ms, on
 * one worker thread: all complete, and the JVM never has 50 live threads. (The echo server is
 * the in-JVM pipe: 10,000 loopback TCP pairs would need 20,000 descriptors, this machine's
 * limit.) Prints the figures; asserts no timing.
 */
class TenThousandSessionsTest {
  @Test
  void tenThousandConcurrentSessionsCompleteOnOneWorkerUnderFiftyThreads() throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    try (PipeEchoServer server = new PipeEchoServer(1, TimeUnit.MILLISECONDS);
         PipeConnector connector = new PipeConnector();
         SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1))
             .connector(connector).address(server.address())
             .timeout(Timeout.of(60, TimeUnit.SECONDS))
             .instrument(SessionRunnerTest.CLIENT).build()) {
      // The JVM's own peak, not a sampler that could miss one: reset now, read after the run.
      threads.resetPeakThreadCount();
      RunResult<String> result = runner.run(LineTesterTask.class, 10_000, 3);
      int peak = threads.getPeakThreadCount();
      System.out.println(result + "; peak live threads " + peak);
      assertTrue(result.allSucceeded(), result.failures().stream().limit(5).toList().toString());
      assertEquals(10_000, result.values().size());
      assertEquals("9999:3:" + 3 * "session 9999 line 0".length(), result.outcome(9999).value());
      assertTrue(peak < 50, "peak live threads " + peak);
      assertEquals(0, connector.openTransports());
    }
  }
}
