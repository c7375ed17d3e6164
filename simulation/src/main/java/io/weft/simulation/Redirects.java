package io.weft.simulation;

import io.weft.continuations.rewrite.spi.CallRedirects;

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
 *   <li>the draws of a {@code SecureRandom} (which cannot be seeded) and {@code UUID.randomUUID()}
 *       draw from the run's seeded source too ({@link SimulatedSecureRandom});
 *   <li>{@code new Random()} without a seed (and a subclass's {@code super()}) gets its seed from
 *       the run's source ({@link SimulatedRandom#seed()}), so its draws follow the run's seed.
 * </ul>
 * Only calls in the rewritten packages are redirected; a library outside them reads the real
 * clock (documented in docs/simulation.md). A class the {@code Rewrite} tool rewrote before, which
 * makes one of these calls, is refused with the reason and the chain (see {@link CallRedirects}).
 */
final class Redirects {
  private static final String TIME = "io/weft/simulation/SimulatedTime";
  private static final String RANDOM = "io/weft/simulation/SimulatedRandom";
  private static final String TLR = "java/util/concurrent/ThreadLocalRandom";

  private Redirects() {}

  static CallRedirects redirects() {
    CallRedirects.Builder r = CallRedirects.builder("the simulation")
        .staticCall("java/lang/System", "nanoTime", "()J", TIME, "nanoTime")
        .staticCall("java/lang/System", "currentTimeMillis", "()J", TIME, "currentTimeMillis")
        .staticCall("java/lang/Thread", "sleep", "(J)V", TIME, "sleep")
        .instanceCall("java/util/concurrent/TimeUnit", "sleep", "(J)V", TIME, "sleep")
        .staticCall("java/time/Instant", "now", "()Ljava/time/Instant;", TIME, "now")
        .staticCall("java/time/Clock", "systemUTC", "()Ljava/time/Clock;", TIME, "systemUTC")
        .staticCall("java/time/Clock", "systemDefaultZone", "()Ljava/time/Clock;", TIME, "systemDefaultZone")
        .staticCall("java/lang/Math", "random", "()D", RANDOM, "mathRandom");
    String[][] tlr = {
      {"nextInt", "()I"}, {"nextInt", "(I)I"}, {"nextInt", "(II)I"},
      {"nextLong", "()J"}, {"nextLong", "(J)J"}, {"nextLong", "(JJ)J"},
      {"nextDouble", "()D"}, {"nextDouble", "(D)D"}, {"nextDouble", "(DD)D"},
      {"nextBoolean", "()Z"}, {"nextFloat", "()F"}, {"nextGaussian", "()D"}, {"nextBytes", "([B)V"},
    };
    for (String[] m : tlr) {
      r.instanceCall(TLR, m[0], m[1], RANDOM, m[0]);
    }
    String secure = "java/security/SecureRandom";
    String secureTo = "io/weft/simulation/SimulatedSecureRandom";
    for (String[] m : tlr) {
      r.instanceCall(secure, m[0], m[1], secureTo, m[0]);
    }
    r.instanceCall(secure, "generateSeed", "(I)[B", secureTo, "generateSeed")
        .staticCall(secure, "getSeed", "(I)[B", secureTo, "getSeed")
        .staticCall("java/util/UUID", "randomUUID", "()Ljava/util/UUID;", secureTo, "randomUUID");
    // new Random() becomes new Random(SimulatedRandom.seed()): its seed comes from the run's.
    r.constructorArgument("java/util/Random", "()V", RANDOM, "seed", "()J");
    return r.build();
  }
}
