package io.weft.simulation;

import io.weft.continuations.internal.rewrite.CallSite;
import io.weft.continuations.internal.rewrite.CallSiteRedirect;
import io.weft.continuations.internal.rewrite.ConstructorArgument;
import io.weft.continuations.internal.rewrite.MethodRef;
import io.weft.continuations.internal.rewrite.Reach;
import io.weft.continuations.internal.rewrite.RewriteRules;
import io.weft.continuations.internal.rewrite.SessionRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the simulation adds to the rewrite of its sessions' classes: the clock and the random
 * sources redirected to virtual time and the run's seed, and the refusal of what cannot be
 * redirected.
 *
 * <ul>
 *   <li>{@code System.nanoTime}, {@code System.currentTimeMillis}, {@code Instant.now()},
 *       {@code Clock.systemUTC()}, {@code Clock.systemDefaultZone()} read {@link SimulatedTime};
 *   <li>{@code Thread.sleep(long)} and {@code TimeUnit.sleep(long)} suspend the session for that
 *       much virtual time ({@link SimulatedTime#sleep(long)}, a wait like any other: the callers
 *       become suspendable);
 *   <li>{@code Math.random()} and the methods of {@code ThreadLocalRandom} draw from the run's
 *       seeded source ({@link SimulatedRandom});
 *   <li>{@code new Random()} without a seed (and a subclass's {@code super()}) gets its seed from
 *       the run's source ({@link SimulatedRandom#seed()}), so its draws follow the run's seed.
 * </ul>
 * Only calls in the rewritten packages are redirected; a library outside them reads the real
 * clock (documented in docs/simulation.md).
 */
final class Redirects {
  private static final String TIME = "io/weft/simulation/SimulatedTime";
  private static final String RANDOM = "io/weft/simulation/SimulatedRandom";
  private static final String TLR = "java/util/concurrent/ThreadLocalRandom";

  private Redirects() {}

  static RewriteRules rules() {
    return RewriteRules.DEFAULT.withRedirects(redirects()).withConstructorArguments(List.of(UNSEEDED_RANDOM))
        .withRules(List.of(REWRITTEN_BEFORE));
  }

  /** {@code new Random()} becomes {@code new Random(SimulatedRandom.seed())}: its seed comes from the run's. */
  static final ConstructorArgument UNSEEDED_RANDOM = new ConstructorArgument(
      MethodRef.of("java/util/Random", "<init>", "()V"), MethodRef.of(RANDOM, "seed", "()J"));

  static List<CallSiteRedirect> redirects() {
    List<CallSiteRedirect> r = new ArrayList<>();
    r.add(CallSiteRedirect.ofStatic(MethodRef.of("java/lang/System", "nanoTime", "()J"), TIME, "nanoTime"));
    r.add(CallSiteRedirect.ofStatic(MethodRef.of("java/lang/System", "currentTimeMillis", "()J"), TIME,
        "currentTimeMillis"));
    r.add(CallSiteRedirect.ofStatic(MethodRef.of("java/lang/Thread", "sleep", "(J)V"), TIME, "sleep"));
    r.add(CallSiteRedirect.ofInstance(MethodRef.of("java/util/concurrent/TimeUnit", "sleep", "(J)V"), TIME, "sleep"));
    r.add(CallSiteRedirect.ofStatic(MethodRef.of("java/time/Instant", "now", "()Ljava/time/Instant;"), TIME, "now"));
    r.add(CallSiteRedirect.ofStatic(MethodRef.of("java/time/Clock", "systemUTC", "()Ljava/time/Clock;"), TIME,
        "systemUTC"));
    r.add(CallSiteRedirect.ofStatic(MethodRef.of("java/time/Clock", "systemDefaultZone", "()Ljava/time/Clock;"), TIME,
        "systemDefaultZone"));
    r.add(CallSiteRedirect.ofStatic(MethodRef.of("java/lang/Math", "random", "()D"), RANDOM, "mathRandom"));
    String[][] tlr = {
      {"nextInt", "()I"}, {"nextInt", "(I)I"}, {"nextInt", "(II)I"},
      {"nextLong", "()J"}, {"nextLong", "(J)J"}, {"nextLong", "(JJ)J"},
      {"nextDouble", "()D"}, {"nextDouble", "(D)D"}, {"nextDouble", "(DD)D"},
      {"nextBoolean", "()Z"}, {"nextFloat", "()F"}, {"nextGaussian", "()D"}, {"nextBytes", "([B)V"},
    };
    for (String[] m : tlr) {
      r.add(CallSiteRedirect.ofInstance(MethodRef.of(TLR, m[0], m[1]), RANDOM, m[0]));
    }
    return r;
  }

  /** The JDK call each redirect target stands for, as a report names it. */
  private static final Map<MethodRef, String> REPLACED = replaced();

  private static Map<MethodRef, String> replaced() {
    Map<MethodRef, String> m = new HashMap<>();
    for (CallSiteRedirect r : redirects()) {
      String owner = r.from().owner();
      m.put(r.to(), owner.substring(owner.lastIndexOf('/') + 1) + "." + r.from().name());
    }
    m.put(UNSEEDED_RANDOM.supplier(), "new Random()");
    return m;
  }

  /**
   * Refuses a class reachable from a session that the {@code Rewrite} tool rewrote before (it
   * carries Weft's mark, so the loader defines it as it is) and that calls what the simulation
   * redirects: its clock and random calls would run unredirected, reading the real clock, and a
   * {@code Thread.sleep} would block the simulation's thread. Its frames were rewritten without
   * knowing that a sleep suspends, so the redirects cannot be added afterwards.
   */
  static final SessionRule REWRITTEN_BEFORE = new SessionRule() {
    @Override
    public void reached(Reach at) {
      if (!at.rewrittenBefore()) {
        return;
      }
      for (CallSite call : at.calls()) {
        String replaced = REPLACED.get(call.target());
        if (replaced != null) {
          at.problem(at.method(), "was rewritten before the simulation loaded it (it carries Weft's Rewritten mark,"
              + " as the Rewrite tool's output does), without the simulation's redirects: its " + replaced
              + " (line " + call.line() + ") would read the real clock or random source, or block the simulation's"
              + " thread", at.chainTo(call), "Give the simulation the classes as compiled, not the Rewrite tool's"
              + " output (under the -javaagent nothing is needed: the simulation's loader rewrites its classes"
              + " from their compiled bytes)");
          return;
        }
      }
    }
  };
}
