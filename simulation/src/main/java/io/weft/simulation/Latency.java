package io.weft.simulation;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * How long a segment takes to cross a link, one way, drawn from the run's seeded random source
 * for every segment: a fixed delay, a uniform spread, or a floor plus an exponential tail (a few
 * segments much later than most). Segments of one connection still arrive in the order they were
 * sent; segments of different connections overtake each other as their draws say.
 */
public final class Latency {
  private final long minNanos;
  private final long spreadNanos;
  private final boolean exponential;

  private Latency(long minNanos, long spreadNanos, boolean exponential) {
    this.minNanos = minNanos;
    this.spreadNanos = spreadNanos;
    this.exponential = exponential;
  }

  /**
   * Always the same delay.
   *
   * @param delay the one-way delay, at least 0
   * @param unit its unit
   * @return the latency
   */
  public static Latency fixed(long delay, TimeUnit unit) {
    return new Latency(nonNegative("delay", unit.toNanos(delay)), 0L, false);
  }

  /**
   * Uniform between {@code min} (inclusive) and {@code max} (exclusive).
   *
   * @param min the least delay, at least 0
   * @param max the bound, above {@code min}
   * @param unit their unit
   * @return the latency
   */
  public static Latency uniform(long min, long max, TimeUnit unit) {
    long lo = nonNegative("min", unit.toNanos(min));
    long hi = unit.toNanos(max);
    if (hi <= lo) {
      throw new IllegalArgumentException("max <= min: " + max + " <= " + min);
    }
    return new Latency(lo, hi - lo, false);
  }

  /**
   * {@code min} plus an exponentially distributed extra with mean {@code meanExtra}.
   *
   * @param min the least delay, at least 0
   * @param meanExtra the mean of the extra delay, more than 0
   * @param unit their unit
   * @return the latency
   */
  public static Latency exponential(long min, long meanExtra, TimeUnit unit) {
    long extra = unit.toNanos(meanExtra);
    if (extra <= 0L) {
      throw new IllegalArgumentException("meanExtra <= 0: " + meanExtra);
    }
    return new Latency(nonNegative("min", unit.toNanos(min)), extra, true);
  }

  private static long nonNegative(String name, long nanos) {
    if (nanos < 0L) {
      throw new IllegalArgumentException(name + " < 0: " + nanos);
    }
    return nanos;
  }

  long sample(SplittableRandom random) {
    if (spreadNanos == 0L) {
      return minNanos;
    }
    if (exponential) {
      double u = random.nextDouble();
      // Capped at 50 means: a draw of practically zero probability must not stall a run.
      double extra = Math.min(-Math.log1p(-u), 50.0) * spreadNanos;
      return minNanos + (long) extra;
    }
    return minNanos + random.nextLong(spreadNanos);
  }

  @Override
  public String toString() {
    if (spreadNanos == 0L) {
      return "fixed " + minNanos + " ns";
    }
    return (exponential ? "exponential " + minNanos + " ns + mean " : "uniform " + minNanos + " ns + ")
        + spreadNanos + " ns";
  }
}
