package io.weft.simulation;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * What a link between two hosts does to the traffic on it, every choice drawn from the run's seed:
 * its {@link Latency}, its bandwidth, and the faults it injects into connections: a refused
 * connect, a reset, a black hole (a connection whose segments vanish). Immutable; each
 * {@code with*} returns a changed copy.
 *
 * <pre>{@code
 * Link flaky = Link.of(Latency.uniform(20, 80, MILLISECONDS))
 *     .withBandwidth(10_000_000)
 *     .withResets(0.001);
 * }</pre>
 */
public final class Link {
  /** No delay, no limit, no fault. */
  public static final Link PERFECT = new Link(Latency.fixed(0, TimeUnit.NANOSECONDS), 0L, 0.0, 0.0, 0.0);

  private final Latency latency;
  private final long bytesPerSecond;
  private final double refusals;
  private final double resets;
  private final double blackHoles;

  private Link(Latency latency, long bytesPerSecond, double refusals, double resets, double blackHoles) {
    this.latency = Objects.requireNonNull(latency, "latency");
    this.bytesPerSecond = bytesPerSecond;
    this.refusals = refusals;
    this.resets = resets;
    this.blackHoles = blackHoles;
  }

  /**
   * A link with this latency, no bandwidth limit and no faults.
   *
   * @param latency the one-way delay of each segment
   * @return the link
   */
  public static Link of(Latency latency) {
    return new Link(latency, 0L, 0.0, 0.0, 0.0);
  }

  /**
   * This link with a bandwidth in each direction: a segment of n bytes takes n / bandwidth to put
   * on the wire, after the segments before it.
   *
   * @param bytesPerSecond the bandwidth; 0 for no limit
   * @return the changed link
   */
  public Link withBandwidth(long bytesPerSecond) {
    if (bytesPerSecond < 0L) {
      throw new IllegalArgumentException("bytesPerSecond < 0: " + bytesPerSecond);
    }
    return new Link(latency, bytesPerSecond, refusals, resets, blackHoles);
  }

  /**
   * This link refusing each connect with this probability, as if nothing listened:
   * {@link java.net.ConnectException}.
   *
   * @param probability from 0 to 1
   * @return the changed link
   */
  public Link withRefusals(double probability) {
    return new Link(latency, bytesPerSecond, check(probability), resets, blackHoles);
  }

  /**
   * This link resetting the connection instead of delivering a segment, with this probability per
   * segment: both ends then see {@code SocketException: Connection reset}.
   *
   * @param probability from 0 to 1
   * @return the changed link
   */
  public Link withResets(double probability) {
    return new Link(latency, bytesPerSecond, refusals, check(probability), blackHoles);
  }

  /**
   * This link black-holing each new connection with this probability: the connect succeeds, then
   * every segment of it vanishes, so its reads and flushes wait until their timeouts.
   *
   * @param probability from 0 to 1
   * @return the changed link
   */
  public Link withBlackHoles(double probability) {
    return new Link(latency, bytesPerSecond, refusals, resets, check(probability));
  }

  private static double check(double p) {
    if (!(p >= 0.0 && p <= 1.0)) {
      throw new IllegalArgumentException("probability not in [0, 1]: " + p);
    }
    return p;
  }

  Latency latency() {
    return latency;
  }

  long bytesPerSecond() {
    return bytesPerSecond;
  }

  double refusals() {
    return refusals;
  }

  double resets() {
    return resets;
  }

  double blackHoles() {
    return blackHoles;
  }

  @Override
  public String toString() {
    return "Link{" + latency + (bytesPerSecond > 0 ? ", " + bytesPerSecond + " B/s" : "")
        + (refusals > 0 ? ", refusals " + refusals : "") + (resets > 0 ? ", resets " + resets : "")
        + (blackHoles > 0 ? ", black holes " + blackHoles : "") + "}";
  }
}
