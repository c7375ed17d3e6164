package io.weft.simulation;

import java.security.SecureRandom;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * What the draws of a {@code SecureRandom} and {@code UUID.randomUUID()} in rewritten code are
 * redirected to. A {@code SecureRandom} cannot be seeded: the platform's generator mixes a given
 * seed with the system's entropy, so its draws would differ from run to run. Inside a run these
 * draw from the run's one seeded source instead (the receiver is ignored); anywhere else they do
 * what the redirected call did. Only the calls made in rewritten code are redirected: a
 * {@code SecureRandom} handed to the JDK (a key generator, an {@code SSLContext}) or used through a
 * variable of type {@code Random} draws from the system, as documented in docs/simulation.md.
 */
public final class SimulatedSecureRandom {
  private SimulatedSecureRandom() {}

  private static SplittableRandom source() {
    World world = World.current();
    return world == null ? null : world.random;
  }

  /**
   * {@link SecureRandom#nextBytes(byte[])}.
   *
   * @param s the receiver, used outside a simulation
   * @param bytes filled with random bytes
   */
  public static void nextBytes(SecureRandom s, byte[] bytes) {
    SplittableRandom r = source();
    if (r == null) {
      s.nextBytes(bytes);
    } else {
      fill(r, bytes);
    }
  }

  private static void fill(SplittableRandom r, byte[] bytes) {
    r.nextBytes(bytes);
  }

  /**
   * {@link SecureRandom#generateSeed(int)}.
   *
   * @param s the receiver, used outside a simulation
   * @param numBytes how many bytes
   * @return that many random bytes
   */
  public static byte[] generateSeed(SecureRandom s, int numBytes) {
    SplittableRandom r = source();
    if (r == null) {
      return s.generateSeed(numBytes);
    }
    if (numBytes < 0) {
      throw new IllegalArgumentException("numBytes cannot be negative");
    }
    byte[] bytes = new byte[numBytes];
    fill(r, bytes);
    return bytes;
  }

  /**
   * {@link SecureRandom#getSeed(int)}.
   *
   * @param numBytes how many bytes
   * @return that many random bytes
   */
  public static byte[] getSeed(int numBytes) {
    SplittableRandom r = source();
    if (r == null) {
      return SecureRandom.getSeed(numBytes);
    }
    if (numBytes < 0) {
      throw new IllegalArgumentException("numBytes cannot be negative");
    }
    byte[] bytes = new byte[numBytes];
    fill(r, bytes);
    return bytes;
  }

  /**
   * {@link UUID#randomUUID()}: a version 4 UUID whose 122 random bits come from the run's source.
   *
   * @return a random UUID
   */
  public static UUID randomUUID() {
    SplittableRandom r = source();
    if (r == null) {
      return UUID.randomUUID();
    }
    long most = (r.nextLong() & ~0xF000L) | 0x4000L;
    long least = (r.nextLong() & ~(3L << 62)) | (1L << 63);
    return new UUID(most, least);
  }

  /**
   * {@link SecureRandom#nextInt()}.
   *
   * @param s the receiver, used outside a simulation
   * @return the next int
   */
  public static int nextInt(SecureRandom s) {
    SplittableRandom r = source();
    return r == null ? s.nextInt() : r.nextInt();
  }

  /**
   * {@link SecureRandom#nextInt(int)}.
   *
   * @param s the receiver, used outside a simulation
   * @param bound the bound, positive
   * @return an int in [0, bound)
   */
  public static int nextInt(SecureRandom s, int bound) {
    SplittableRandom r = source();
    return r == null ? s.nextInt(bound) : r.nextInt(bound);
  }

  /**
   * {@code SecureRandom.nextInt(int, int)}.
   *
   * @param s the receiver, used outside a simulation
   * @param origin the least value
   * @param bound the bound, above origin
   * @return an int in [origin, bound)
   */
  public static int nextInt(SecureRandom s, int origin, int bound) {
    SplittableRandom r = source();
    return r == null ? s.nextInt(origin, bound) : r.nextInt(origin, bound);
  }

  /**
   * {@link SecureRandom#nextLong()}.
   *
   * @param s the receiver, used outside a simulation
   * @return the next long
   */
  public static long nextLong(SecureRandom s) {
    SplittableRandom r = source();
    return r == null ? s.nextLong() : r.nextLong();
  }

  /**
   * {@code SecureRandom.nextLong(long)}.
   *
   * @param s the receiver, used outside a simulation
   * @param bound the bound, positive
   * @return a long in [0, bound)
   */
  public static long nextLong(SecureRandom s, long bound) {
    SplittableRandom r = source();
    return r == null ? s.nextLong(bound) : r.nextLong(bound);
  }

  /**
   * {@code SecureRandom.nextLong(long, long)}.
   *
   * @param s the receiver, used outside a simulation
   * @param origin the least value
   * @param bound the bound, above origin
   * @return a long in [origin, bound)
   */
  public static long nextLong(SecureRandom s, long origin, long bound) {
    SplittableRandom r = source();
    return r == null ? s.nextLong(origin, bound) : r.nextLong(origin, bound);
  }

  /**
   * {@link SecureRandom#nextDouble()}.
   *
   * @param s the receiver, used outside a simulation
   * @return a double in [0, 1)
   */
  public static double nextDouble(SecureRandom s) {
    SplittableRandom r = source();
    return r == null ? s.nextDouble() : r.nextDouble();
  }

  /**
   * {@link SecureRandom#nextBoolean()}.
   *
   * @param s the receiver, used outside a simulation
   * @return the next boolean
   */
  public static boolean nextBoolean(SecureRandom s) {
    SplittableRandom r = source();
    return r == null ? s.nextBoolean() : r.nextBoolean();
  }

  /**
   * {@link SecureRandom#nextFloat()}.
   *
   * @param s the receiver, used outside a simulation
   * @return a float in [0, 1)
   */
  public static float nextFloat(SecureRandom s) {
    SplittableRandom r = source();
    return r == null ? s.nextFloat() : r.nextFloat();
  }

  /**
   * {@link SecureRandom#nextGaussian()}.
   *
   * @param s the receiver, used outside a simulation
   * @return a normally distributed double
   */
  public static double nextGaussian(SecureRandom s) {
    SplittableRandom r = source();
    return r == null ? s.nextGaussian() : r.nextGaussian();
  }
}
