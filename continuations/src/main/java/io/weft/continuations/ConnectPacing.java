package io.weft.continuations;

import io.weft.transport.spi.Ticker;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How fast a run opens connections: at most {@link #burst()} at once, then {@link #perSecond()}
 * a second (a token bucket). A server's listen queue holds the connections its accept loop has
 * not taken yet (Java's default backlog is 50, Redis' and nginx's 511); a run that opens
 * thousands at once overflows it, the kernel drops the SYNs, and each dropped one is retried
 * after 1 s, then 3 s: the run's start is then the server's retransmit timer, not its speed.
 * Pacing keeps the queue short without knowing the server, as long as the server keeps up with
 * the pace: it is not a guarantee (docs/many-sessions.md).
 *
 * <p>{@link #DEFAULT} ({@value #DEFAULT_PER_SECOND} a second, bursts of {@value #DEFAULT_BURST})
 * is what a stock Java server with a thread per connection mostly takes on a busy machine:
 * GreenMail (Java's default backlog of 50) lost sessions to 1,000 connects at 1,000 a second in
 * continuation mode on two loaded cores, and none at 500 in that run; in other runs at 500 it
 * still lost up to 108 of 1,000 where it fell behind the pace (and 231-666 unpaced). It leaves such
 * a server {@code (50 - burst) / rate}, 80 ms, of accept-loop stall before a handshake is dropped,
 * and opens 10,000 connections in 20 s at the least. A server with a deeper backlog and a fast accept loop
 * (Redis, nginx) takes a faster pace; {@link #NONE} opens every connection at once. Only TCP is
 * paced: an in-VM pipe has no listen queue.
 */
public final class ConnectPacing {
  /** Connections a second of {@link #DEFAULT}. */
  public static final int DEFAULT_PER_SECOND = 500;
  /** Connections at once of {@link #DEFAULT}. */
  public static final int DEFAULT_BURST = 10;

  /** No pacing: every session connects as soon as it starts. */
  public static final ConnectPacing NONE = new ConnectPacing(0.0, 0);
  /** {@value #DEFAULT_PER_SECOND} connections a second, {@value #DEFAULT_BURST} at once. */
  public static final ConnectPacing DEFAULT = new ConnectPacing(DEFAULT_PER_SECOND, DEFAULT_BURST);

  private final double perSecond;
  private final int burst;

  private ConnectPacing(double perSecond, int burst) {
    this.perSecond = perSecond;
    this.burst = burst;
  }

  /**
   * At most {@code burst} connections at once, then {@code perSecond} a second.
   *
   * @param perSecond connections a second, more than 0
   * @param burst connections that may open at once after a quiet spell, at least 1
   * @return the pacing
   * @throws IllegalArgumentException if {@code perSecond <= 0} (use {@link #NONE}) or {@code burst < 1}
   */
  public static ConnectPacing perSecond(double perSecond, int burst) {
    if (!(perSecond > 0.0) || Double.isInfinite(perSecond)) {
      throw new IllegalArgumentException("perSecond <= 0: " + perSecond + " (ConnectPacing.NONE for no pacing)");
    }
    if (burst < 1) {
      throw new IllegalArgumentException("burst < 1: " + burst);
    }
    return new ConnectPacing(perSecond, burst);
  }

  /**
   * Connections a second; 0 for {@link #NONE}.
   *
   * @return the rate
   */
  public double perSecond() {
    return perSecond;
  }

  /**
   * Connections at once; 0 for {@link #NONE}.
   *
   * @return the burst
   */
  public int burst() {
    return burst;
  }

  /**
   * Whether this paces at all.
   *
   * @return false for {@link #NONE}
   */
  public boolean paces() {
    return perSecond > 0.0;
  }

  /**
   * A new pacer for one run, reading {@code ticker}.
   *
   * @param ticker the clock the pacer reads
   * @return the pacer
   */
  public Pacer newPacer(Ticker ticker) {
    return new Pacer(this, Objects.requireNonNull(ticker, "ticker"));
  }

  @Override
  public String toString() {
    return paces() ? String.format(Locale.ROOT, "%.0f/s, burst %d", perSecond, burst) : "none";
  }

  /**
   * One run's pacer: each connect first reserves its turn. Thread-safe and lock-free (a CAS on
   * the time the next turn is free, the generic cell rate algorithm of ATM and nginx's
   * {@code limit_req}).
   */
  public static final class Pacer {
    private final Ticker ticker;
    private final long intervalNanos;
    private final long toleranceNanos;
    private final boolean paces;
    /** When the next turn is free once the burst is used up; MIN_VALUE before the first. */
    private final AtomicLong next = new AtomicLong(Long.MIN_VALUE);

    Pacer(ConnectPacing pacing, Ticker ticker) {
      this.ticker = ticker;
      this.paces = pacing.paces();
      this.intervalNanos = paces ? Math.max(1L, (long) (1e9 / pacing.perSecond)) : 0L;
      this.toleranceNanos = paces ? (pacing.burst - 1) * intervalNanos : 0L;
    }

    /**
     * Reserves the next turn to connect.
     *
     * @return how long to wait before connecting, in nanoseconds; 0 for now
     */
    public long reserve() {
      if (!paces) {
        return 0L;
      }
      long now = ticker.nanoTime();
      for (;;) {
        long n = next.get();
        long turn = n == Long.MIN_VALUE || n - (now - toleranceNanos) < 0L ? now - toleranceNanos : n;
        if (next.compareAndSet(n, turn + intervalNanos)) {
          long wait = turn - now;
          return wait > 0L ? wait : 0L;
        }
      }
    }
  }
}
