package io.weft.continuations.testing;

import io.weft.continuations.Mode;
import io.weft.continuations.NotInstrumentedError;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.continuations.internal.runtime.Guard;
import io.weft.continuations.testclient.shapes.CachedSiteShape;
import io.weft.continuations.testclient.shapes.ProxyShape;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The main {@code ResumeFallbackTest} starts in a child JVM that has JavaFlow's api on the module
 * path, not opened to Weft: Weft cannot read JavaFlow's reference stack there, so the loader writes
 * each restored call's check into the engine's restore code, made when the session resumes. It runs
 * the shapes of {@code ResumeCheckTest} through the loader and prints, per shape and mode, how the
 * sessions ended, for the test to compare.
 */
public final class ResumeFallbackChild {
  private static final int SESSIONS = 200;

  private ResumeFallbackChild() {}

  public static void main(String[] args) throws Exception {
    System.out.println("checks at capture: " + Guard.CHECKS_AT_CAPTURE);
    for (int workers = 1; workers <= 2; workers++) {
      System.out.println(refused(workers, "proxy", ProxyShape.class));
      for (String odd : new String[] {"proxy", "otherLoader", "sameObject"}) {
        System.out.println(refused(workers, "CachedSiteShape " + odd, CachedSiteShape.class, odd, false));
      }
      System.out.println(resumed(workers));
    }
  }

  /**
   * One line: the run's sessions, each of which should end with a {@code NotInstrumentedError} from
   * the check of a restored call ("would run its code a second time"), having entered its body once
   * and never returned from it; counted, with the class the first error names.
   */
  private static String refused(int workers, String what, Class<? extends SessionTask<String>> shape,
      Object... more) throws Exception {
    AtomicIntegerArray runs = new AtomicIntegerArray(2 * SESSIONS);
    Object[] args = new Object[more.length + 1];
    args[0] = runs;
    System.arraycopy(more, 0, args, 1, more.length);
    try (EchoEveryReadSuspendsConnector connector = new EchoEveryReadSuspendsConnector();
         SessionRunner runner = runner(connector, workers)) {
      RunResult<String> result = runner.run(shape, SESSIONS, args);
      int refused = 0;
      int byCheck = 0;
      int once = 0;
      String named = null;
      String other = null;
      for (int i = 0; i < SESSIONS; i++) {
        Outcome<String> o = result.outcome(i);
        if (o.failure() instanceof NotInstrumentedError) {
          refused++;
          NotInstrumentedError e = (NotInstrumentedError) o.failure();
          if (e.getMessage().contains("would run its code a second time")) {
            byCheck++;
          }
          if (named == null) {
            named = e.className() == null ? "null" : e.className().startsWith("jdk.proxy") ? "a JDK proxy"
                : e.className();
          }
        } else if (other == null) {
          other = "session " + i + ": " + o;
        }
        if (runs.get(2 * i) == 1 && runs.get(2 * i + 1) == 0) {
          once++;
        }
      }
      return what + " continuations(" + workers + "): " + refused + " of " + SESSIONS + " refused naming " + named
          + ", " + (byCheck > 0 ? "some" : "none") + " by the check of a restored call, " + once
          + " entered once and never returned, " + connector.openTransports() + " open"
          + (other == null ? "" : "; " + other);
    }
  }

  /** One line: three rewritten classes in turn through one checked call site, each resumed into itself. */
  private static String resumed(int workers) throws Exception {
    AtomicIntegerArray runs = new AtomicIntegerArray(2 * SESSIONS);
    try (EchoEveryReadSuspendsConnector connector = new EchoEveryReadSuspendsConnector();
         SessionRunner runner = runner(connector, workers)) {
      RunResult<String> result = runner.run(CachedSiteShape.class, SESSIONS, runs, "none", true);
      int right = 0;
      String wrong = null;
      for (int i = 0; i < SESSIONS; i++) {
        if (CachedSiteShape.expected(i, true).equals(result.outcome(i).value()) && runs.get(2 * i) == 1
            && runs.get(2 * i + 1) == 1) {
          right++;
        } else if (wrong == null) {
          wrong = "session " + i + ": " + result.outcome(i);
        }
      }
      return "CachedSiteShape megamorphic continuations(" + workers + "): " + right + " of " + SESSIONS
          + " right, entered and returned once, " + connector.openTransports() + " open"
          + (wrong == null ? "" : "; " + wrong);
    }
  }

  private static SessionRunner runner(EchoEveryReadSuspendsConnector connector, int workers) {
    return SessionRunner.builder().connector(connector)
        .address(InetSocketAddress.createUnresolved("resume-fallback", 1)).timeout(Timeout.of(60, TimeUnit.SECONDS))
        .mode(Mode.continuations(workers)).instrument("io.weft.continuations.testclient").build();
  }
}
