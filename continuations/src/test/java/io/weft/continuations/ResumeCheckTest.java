package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.shapes.CachedSiteShape;
import io.weft.continuations.testclient.shapes.ProxyMethodRefShape;
import io.weft.continuations.testclient.shapes.ProxyShape;
import io.weft.continuations.testing.EchoEveryReadSuspendsConnector;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Predicate;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The check of a restored call: a suspend swallowed by an object the load-time walk cannot see (a JDK
 * proxy of the client's interface, whose handler calls the real object by reflection) returns to
 * rewritten code, which captures itself as if the call had suspended. The stack walk of a run's
 * first suspends is spent on plain exchanges first ({@link ProxyShape}), so the first suspend
 * through the proxy is caught by the check of the call into the proxy, made where its caller captures
 * itself (or, where JavaFlow's reference stack cannot be read, where it resumes): before the handler
 * runs a second time or is skipped. Every session then fails with {@code NotInstrumentedError} naming the proxy's class,
 * entered its body once and never returned from it.
 *
 * <p>Each restored call remembers the last receiver class that passed its check. {@link
 * CachedSiteShape} makes every exchange at one call site, first through rewritten classes (one, or
 * three in turn), then through an object that swallows the suspend there: a proxy whose class is
 * made after the site has remembered another, or a class of the same name defined again, not
 * rewritten, by another loader, or an unrewritten subclass of a rewritten class that suspends in a
 * method it inherits and calls on itself (the object called again is the receiver: only the check
 * of the dispatched method refuses it). All are caught as before; three classes in turn resume
 * correctly.
 */
class ResumeCheckTest {
  private static final int SESSIONS = 200;

  @ParameterizedTest(name = "continuations({0})")
  @ValueSource(ints = {1, 2})
  void aProxyThatSwallowedASuspendIsCaughtAtTheResumeBeforeItsCodeRunsAgain(int workers) throws Exception {
    AtomicIntegerArray runs = new AtomicIntegerArray(2 * SESSIONS);
    caughtInEverySession(workers, runs, name -> name.startsWith("jdk.proxy"), ProxyShape.class, runs);
  }

  /**
   * The same proxy called through a method reference of the client's own interface ({@code
   * Exchanger::exchange}): the call into the proxy is made in the bridge the rewrite makes for the
   * method reference, and checked there as in the client's own code.
   */
  @ParameterizedTest(name = "continuations({0})")
  @ValueSource(ints = {1, 2})
  void aProxyCalledThroughAMethodReferenceIsCaughtLikeADirectCall(int workers) throws Exception {
    AtomicIntegerArray runs = new AtomicIntegerArray(2 * SESSIONS);
    caughtInEverySession(workers, runs, name -> name.startsWith("jdk.proxy"), ProxyMethodRefShape.class, runs);
  }

  /**
   * The check is made while the frame that called the proxy captures itself, so the session ends
   * there, before it suspends: the read under the proxy is never woken here, and a check made only
   * at the resume (or none) would leave the sessions suspended for ever. The wait for the run is
   * bounded so that such a run fails instead of hanging the build; the runner's close then cancels it.
   */
  @ParameterizedTest(name = "continuations({0})")
  @ValueSource(ints = {1, 2})
  void aProxyThatSwallowedASuspendEndsTheSessionBeforeItSuspends(int workers) throws Exception {
    AtomicIntegerArray runs = new AtomicIntegerArray(2 * SESSIONS);
    ExecutorService background = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "resume-check-run");
      t.setDaemon(true);
      return t;
    });
    try (EchoEveryReadSuspendsConnector connector = EchoEveryReadSuspendsConnector.neverWaking("q");
         SessionRunner runner = runner(connector, workers)) {
      Future<RunResult<String>> run = background.submit(() -> runner.run(ProxyShape.class, SESSIONS, runs));
      RunResult<String> result;
      try {
        result = run.get(60, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        throw new AssertionError("sessions still suspended under the proxy after 60 s: the swallowed suspend"
            + " was not caught while the caller captured itself", e);
      }
      for (int n = 0; n < SESSIONS; n++) {
        int i = n;
        Outcome<String> o = result.outcome(i);
        NotInstrumentedError e = assertInstanceOf(NotInstrumentedError.class, o.failure(),
            () -> "session " + i + ": " + o);
        assertTrue(e.className() != null && e.className().startsWith("jdk.proxy"), e.getMessage());
        assertEquals(1, runs.get(2 * i), "session " + i + " entered its body once");
        assertEquals(0, runs.get(2 * i + 1), "session " + i + " never returned from its body");
      }
      assertEquals(0, connector.openTransports());
    } finally {
      background.shutdownNow();
    }
  }

  @ParameterizedTest(name = "continuations({0}), {1}, megamorphic {2}")
  @CsvSource({"1, proxy, false", "2, proxy, false", "1, proxy, true", "2, proxy, true",
      "1, otherLoader, false", "2, otherLoader, false", "1, otherLoader, true", "2, otherLoader, true",
      "1, sameObject, false", "2, sameObject, false", "1, sameObject, true", "2, sameObject, true"})
  void aCallSiteThatRememberedARewrittenClassStillCatchesAnotherThatSwallowed(int workers, String odd,
      boolean megamorphic) throws Exception {
    AtomicIntegerArray runs = new AtomicIntegerArray(2 * SESSIONS);
    String first = CachedSiteShape.First.class.getName();
    String selfCalling = CachedSiteShape.SelfCalling.class.getName();
    Predicate<String> named = odd.equals("proxy") ? name -> name.startsWith("jdk.proxy")
        : odd.equals("sameObject") ? selfCalling::equals : first::equals;
    caughtInEverySession(workers, runs, named, CachedSiteShape.class, runs, odd, megamorphic);
  }

  @ParameterizedTest(name = "continuations({0})")
  @ValueSource(ints = {1, 2})
  void aCallSiteThatSeesThreeRewrittenClassesInTurnResumesEachIntoItself(int workers) throws Exception {
    AtomicIntegerArray runs = new AtomicIntegerArray(2 * SESSIONS);
    try (EchoEveryReadSuspendsConnector connector = new EchoEveryReadSuspendsConnector();
         SessionRunner runner = runner(connector, workers)) {
      RunResult<String> result = runner.run(CachedSiteShape.class, SESSIONS, runs, "none", true);
      for (int i = 0; i < SESSIONS; i++) {
        assertEquals(CachedSiteShape.expected(i, true), result.outcome(i).value(), "session " + i);
        assertEquals(1, runs.get(2 * i), "session " + i + " entered its body once");
        assertEquals(1, runs.get(2 * i + 1), "session " + i + " returned once");
      }
      assertEquals(0, connector.openTransports());
    }
  }

  private static void caughtInEverySession(int workers, AtomicIntegerArray runs, Predicate<String> named,
      Class<? extends io.weft.transport.SessionTask<String>> shape, Object... args) throws Exception {
    try (EchoEveryReadSuspendsConnector connector = new EchoEveryReadSuspendsConnector();
         SessionRunner runner = runner(connector, workers)) {
      RunResult<String> result = runner.run(shape, SESSIONS, args);
      int byCallCheck = 0;
      for (int n = 0; n < SESSIONS; n++) {
        int i = n;
        Outcome<String> o = result.outcome(i);
        assertEquals(Outcome.Status.FAILED, o.status(), () -> "session " + i + ": " + o);
        NotInstrumentedError e = assertInstanceOf(NotInstrumentedError.class, o.failure(),
            () -> "session " + i + ": " + o.failure());
        assertTrue(e.className() != null && named.test(e.className()), e.getMessage());
        assertEquals(1, runs.get(2 * i), "session " + i + " entered its body once");
        assertEquals(0, runs.get(2 * i + 1), "session " + i + " never returned from its body");
        if (e.getMessage().contains("would run its code a second time")) {
          byCallCheck++;
        }
      }
      assertTrue(byCallCheck >= 1,
          "the first suspend through the odd object is caught by its caller's check of the restored call");
      assertEquals(0, connector.openTransports());
    }
  }

  private static SessionRunner runner(EchoEveryReadSuspendsConnector connector, int workers) {
    return SessionRunner.builder().connector(connector)
        .address(InetSocketAddress.createUnresolved("resume-check", 1)).timeout(Timeout.of(60, TimeUnit.SECONDS))
        .mode(Mode.continuations(workers)).instrument(SessionRunnerTest.CLIENT).build();
  }
}
