package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.shapes.ProxyShape;
import io.weft.continuations.testing.EchoEveryReadSuspendsConnector;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The resume-time check: a suspend swallowed by an object the load-time walk cannot see (a JDK
 * proxy of the client's interface, whose handler calls the real object by reflection) returns to
 * rewritten code, which captures itself as if the call had suspended. The stack walk of a run's
 * first suspends is spent on plain exchanges first ({@link ProxyShape}), so the first suspend
 * through the proxy is caught where the session resumes: before the handler runs a second time or
 * is skipped. Every session then fails with {@code NotInstrumentedError} naming the proxy's class,
 * entered its body once and never returned from it.
 */
class ResumeCheckTest {
  private static final int SESSIONS = 200;

  @ParameterizedTest(name = "continuations({0})")
  @ValueSource(ints = {1, 2})
  void aProxyThatSwallowedASuspendIsCaughtAtTheResumeBeforeItsCodeRunsAgain(int workers) throws Exception {
    AtomicIntegerArray runs = new AtomicIntegerArray(2 * SESSIONS);
    try (EchoEveryReadSuspendsConnector connector = new EchoEveryReadSuspendsConnector();
         SessionRunner runner = SessionRunner.builder().connector(connector)
             .address(InetSocketAddress.createUnresolved("proxy", 1)).timeout(Timeout.of(60, TimeUnit.SECONDS))
             .mode(Mode.continuations(workers)).instrument(SessionRunnerTest.CLIENT).build()) {
      RunResult<String> result = runner.run(ProxyShape.class, SESSIONS, runs);
      int atResume = 0;
      for (int n = 0; n < SESSIONS; n++) {
        int i = n;
        Outcome<String> o = result.outcome(i);
        assertEquals(Outcome.Status.FAILED, o.status(), () -> "session " + i + ": " + o);
        NotInstrumentedError e = assertInstanceOf(NotInstrumentedError.class, o.failure(),
            () -> "session " + i + ": " + o.failure());
        assertTrue(e.className() != null && e.className().startsWith("jdk.proxy"), e.getMessage());
        assertEquals(1, runs.get(2 * i), "session " + i + " entered its body once");
        assertEquals(0, runs.get(2 * i + 1), "session " + i + " never returned from its body");
        if (e.getMessage().contains("would run its code a second time")) {
          atResume++;
        }
      }
      assertTrue(atResume >= 1, "the first suspend through the proxy is caught at its resume");
      assertEquals(0, connector.openTransports());
    }
  }
}
