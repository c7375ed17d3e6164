package io.weft.simulation;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The random source of rewritten code inside a simulation: what {@code Math.random()} and the
 * methods of {@code ThreadLocalRandom.current()} are redirected to, since neither can be seeded, and
 * what seeds a {@code new Random()} made without a seed.
 * Inside a run they draw from the run's one seeded source (the receiver is ignored); anywhere else
 * they do what the redirected call did.
 */
public final class SimulatedRandom {
  private SimulatedRandom() {}

  private static java.util.SplittableRandom source() {
    World world = World.current();
    return world == null ? null : world.random;
  }

  /**
   * The seed of a {@code new Random()} made without one in rewritten code: the next draw of the
   * run's source, so the new generator's draws follow the run's seed. Outside a run, a seed that
   * differs from call to call, as the unseeded constructor gives.
   *
   * @return a seed for {@code new Random(seed)}
   */
  public static long seed() {
    java.util.SplittableRandom r = source();
    return r == null ? ThreadLocalRandom.current().nextLong() : r.nextLong();
  }

  /**
   * {@link Math#random()}.
   *
   * @return a double in [0, 1)
   */
  public static double mathRandom() {
    java.util.SplittableRandom r = source();
    return r == null ? Math.random() : r.nextDouble();
  }

  /**
   * {@link ThreadLocalRandom#nextInt()}.
   *
   * @param t the receiver, used outside a simulation
   * @return the next int
   */
  public static int nextInt(ThreadLocalRandom t) {
    java.util.SplittableRandom r = source();
    return r == null ? t.nextInt() : r.nextInt();
  }

  /**
   * {@link ThreadLocalRandom#nextInt(int)}.
   *
   * @param t the receiver, used outside a simulation
   * @param bound the bound, positive
   * @return an int in [0, bound)
   */
  public static int nextInt(ThreadLocalRandom t, int bound) {
    java.util.SplittableRandom r = source();
    return r == null ? t.nextInt(bound) : r.nextInt(bound);
  }

  /**
   * {@link ThreadLocalRandom#nextInt(int, int)}.
   *
   * @param t the receiver, used outside a simulation
   * @param origin the least value
   * @param bound the bound, above origin
   * @return an int in [origin, bound)
   */
  public static int nextInt(ThreadLocalRandom t, int origin, int bound) {
    java.util.SplittableRandom r = source();
    return r == null ? t.nextInt(origin, bound) : r.nextInt(origin, bound);
  }

  /**
   * {@link ThreadLocalRandom#nextLong()}.
   *
   * @param t the receiver, used outside a simulation
   * @return the next long
   */
  public static long nextLong(ThreadLocalRandom t) {
    java.util.SplittableRandom r = source();
    return r == null ? t.nextLong() : r.nextLong();
  }

  /**
   * {@link ThreadLocalRandom#nextLong(long)}.
   *
   * @param t the receiver, used outside a simulation
   * @param bound the bound, positive
   * @return a long in [0, bound)
   */
  public static long nextLong(ThreadLocalRandom t, long bound) {
    java.util.SplittableRandom r = source();
    return r == null ? t.nextLong(bound) : r.nextLong(bound);
  }

  /**
   * {@link ThreadLocalRandom#nextLong(long, long)}.
   *
   * @param t the receiver, used outside a simulation
   * @param origin the least value
   * @param bound the bound, above origin
   * @return a long in [origin, bound)
   */
  public static long nextLong(ThreadLocalRandom t, long origin, long bound) {
    java.util.SplittableRandom r = source();
    return r == null ? t.nextLong(origin, bound) : r.nextLong(origin, bound);
  }

  /**
   * {@link ThreadLocalRandom#nextDouble()}.
   *
   * @param t the receiver, used outside a simulation
   * @return a double in [0, 1)
   */
  public static double nextDouble(ThreadLocalRandom t) {
    java.util.SplittableRandom r = source();
    return r == null ? t.nextDouble() : r.nextDouble();
  }

  /**
   * {@link ThreadLocalRandom#nextDouble(double)}.
   *
   * @param t the receiver, used outside a simulation
   * @param bound the bound, positive
   * @return a double in [0, bound)
   */
  public static double nextDouble(ThreadLocalRandom t, double bound) {
    java.util.SplittableRandom r = source();
    return r == null ? t.nextDouble(bound) : r.nextDouble(bound);
  }

  /**
   * {@link ThreadLocalRandom#nextDouble(double, double)}.
   *
   * @param t the receiver, used outside a simulation
   * @param origin the least value
   * @param bound the bound, above origin
   * @return a double in [origin, bound)
   */
  public static double nextDouble(ThreadLocalRandom t, double origin, double bound) {
    java.util.SplittableRandom r = source();
    return r == null ? t.nextDouble(origin, bound) : r.nextDouble(origin, bound);
  }

  /**
   * {@link ThreadLocalRandom#nextBoolean()}.
   *
   * @param t the receiver, used outside a simulation
   * @return the next boolean
   */
  public static boolean nextBoolean(ThreadLocalRandom t) {
    java.util.SplittableRandom r = source();
    return r == null ? t.nextBoolean() : r.nextBoolean();
  }

  /**
   * {@link ThreadLocalRandom#nextFloat()}.
   *
   * @param t the receiver, used outside a simulation
   * @return a float in [0, 1)
   */
  public static float nextFloat(ThreadLocalRandom t) {
    java.util.SplittableRandom r = source();
    return r == null ? t.nextFloat() : r.nextFloat();
  }

  /**
   * {@link ThreadLocalRandom#nextGaussian()}.
   *
   * @param t the receiver, used outside a simulation
   * @return a normally distributed double
   */
  public static double nextGaussian(ThreadLocalRandom t) {
    java.util.SplittableRandom r = source();
    return r == null ? t.nextGaussian() : r.nextGaussian();
  }

  /**
   * {@link ThreadLocalRandom#nextBytes(byte[])}.
   *
   * @param t the receiver, used outside a simulation
   * @param bytes filled with random bytes
   */
  public static void nextBytes(ThreadLocalRandom t, byte[] bytes) {
    java.util.SplittableRandom r = source();
    if (r == null) {
      t.nextBytes(bytes);
    } else {
      r.nextBytes(bytes);
    }
  }
}
