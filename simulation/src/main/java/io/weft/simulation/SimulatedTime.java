package io.weft.simulation;

import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.WaitRegistration;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.apache.commons.javaflow.api.continuable;

/**
 * The clock a session reads inside a simulation: virtual time while a simulation runs on the
 * calling thread, the system's clock anywhere else. Code that must run both ways calls these
 * instead of {@link System#nanoTime()}, {@link System#currentTimeMillis()}, {@link Instant#now()}
 * and {@link Thread#sleep(long)}; they are also what the rewriter redirects those calls to in
 * rewritten code.
 *
 * <p>The virtual wall clock starts at {@link #EPOCH} when a run starts, whatever the date, so
 * that a run's timestamps are part of its determinism.
 */
public final class SimulatedTime {
  /** The virtual wall clock's reading at the start of every run: 2026-01-01T00:00:00Z. */
  public static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

  private static final WaitRegistration NEVER = wake -> { };

  private SimulatedTime() {}

  /**
   * {@link System#nanoTime()}, or the virtual clock inside a simulation.
   *
   * @return nanoseconds; only differences mean anything
   */
  public static long nanoTime() {
    World world = World.current();
    return world == null ? System.nanoTime() : world.now();
  }

  /**
   * {@link System#currentTimeMillis()}, or {@link #EPOCH} plus the virtual time inside a
   * simulation.
   *
   * @return milliseconds since 1970-01-01T00:00:00Z
   */
  public static long currentTimeMillis() {
    World world = World.current();
    return world == null ? System.currentTimeMillis() : EPOCH.toEpochMilli() + world.now() / 1_000_000L;
  }

  /**
   * {@link Instant#now()}, or {@link #EPOCH} plus the virtual time inside a simulation.
   *
   * @return the instant
   */
  public static Instant now() {
    World world = World.current();
    return world == null ? Instant.now() : EPOCH.plusNanos(world.now());
  }

  /**
   * {@link Clock#systemUTC()}: a clock whose instant is {@link #now()}.
   *
   * @return a UTC clock that reads virtual time inside a simulation
   */
  public static Clock systemUTC() {
    return new VirtualClock(ZoneOffset.UTC);
  }

  /**
   * {@link Clock#systemDefaultZone()}: a clock whose instant is {@link #now()}.
   *
   * @return a clock in the default zone that reads virtual time inside a simulation
   */
  public static Clock systemDefaultZone() {
    return new VirtualClock(ZoneId.systemDefault());
  }

  /** A clock that reads {@link SimulatedTime#now()}. */
  private static final class VirtualClock extends Clock {
    private final ZoneId zone;

    VirtualClock(ZoneId zone) {
      this.zone = zone;
    }

    @Override
    public ZoneId getZone() {
      return zone;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return new VirtualClock(zone);
    }

    @Override
    public Instant instant() {
      return now();
    }

    @Override
    public long millis() {
      return currentTimeMillis();
    }
  }

  /**
   * {@link TimeUnit#sleep(long)}, as {@link #sleep(long)}.
   *
   * @param unit the unit of {@code duration}
   * @param duration how long
   * @throws InterruptedException if the thread is interrupted, or the session cancelled
   */
  @continuable
  public static void sleep(TimeUnit unit, long duration) throws InterruptedException {
    if (duration > 0L) {
      sleep(Math.max(1L, unit.toMillis(duration)));
    }
  }

  /**
   * {@link Thread#sleep(long)}; inside a simulation the session is suspended for that much
   * virtual time, and other sessions run meanwhile.
   *
   * @param millis how long, at least 0
   * @throws InterruptedException if the thread is interrupted, or the session cancelled
   */
  @continuable
  public static void sleep(long millis) throws InterruptedException {
    if (millis < 0L) {
      throw new IllegalArgumentException("timeout value is negative");
    }
    if (World.current() == null) {
      Thread.sleep(millis);
      return;
    }
    if (millis == 0L) {
      return;
    }
    try {
      Suspend.await(NEVER, TimeUnit.MILLISECONDS.toNanos(millis));
    } catch (IOException e) {
      InterruptedException interrupted = new InterruptedException("sleep ended: " + e.getMessage());
      interrupted.initCause(e);
      throw interrupted;
    }
  }
}
