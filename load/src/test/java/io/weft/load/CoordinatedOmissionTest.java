package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.weft.load.internal.LoadRun;
import io.weft.load.internal.LoadSpec;
import io.weft.load.internal.Results;
import io.weft.load.internal.Stages;
import io.weft.load.testscenario.SignallingEchoScenario;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Coordinated omission, in the run's own clock. A real loopback echo server (a
 * {@link SteppingEchoPeer}) moves a {@link ManualTicker} on by one millisecond for each echo it answers, and by 500 ms more for
 * the 250th: the freeze is a step of the clock, not a sleep, so every latency the driver records
 * is an exact figure that no load on the machine can move, and the whole distribution is
 * asserted. One user (one session), so that no other user's exchange moves the clock during
 * its own.
 *
 * <p>In the open model each iteration counts from its intended start, so the arrivals that
 * queued behind the freeze carry their waits; its service time, like a naive closed loop, sees
 * the freeze once; HdrHistogram's correction of the closed loop puts back the exchanges the
 * user would have sent at its pace.
 */
@ParameterizedClass(name = "{0}")
@ValueSource(strings = {"threads", "continuations:1"})
@Timeout(120)
class CoordinatedOmissionTest {
  private static final long MS = 1_000_000L;
  /** What each echo moves the clock on by. */
  private static final long SERVICE = MS;
  /** What the freezing echo moves the clock on by besides. */
  private static final long FREEZE = 500 * MS;
  /** The echo that freezes, counted from 1. */
  private static final long FREEZE_AT = 250;
  /** The manual clock's time 0: far from zero, as {@code System.nanoTime} may be. */
  private static final long START = 7_000_000_000_000L;

  @Parameter String mode;
  @TempDir Path dir;

  @Test
  void openModelCountsEachIterationFromItsIntendedStartSoTheArrivalsQueuedBehindAFreezeCarryTheirWaits()
      throws Exception {
    ManualTicker clock = new ManualTicker(START);
    Results.Op echo;
    try (SteppingEchoPeer peer = new SteppingEchoPeer(clock, SERVICE, FREEZE_AT, FREEZE)) {
      LoadSpec spec = spec(peer, clock, "open");
      long interval = 2 * MS;
      spec.stages = Stages.constant(500, 2.0); // arrival j due at j x 2 ms, j < 1,000
      spec.maxSessions = 1;
      // While the user waits for its next arrival nothing moves the clock but this thread: when
      // the dispatcher waits for arrival j and the user has finished the j before it, the next
      // thing that can happen is arrival j, so the clock goes to its due time.
      Thread stepper = new Thread(() -> {
        try {
          while (true) {
            long due = clock.awaitParked();
            peer.awaitDone(Math.round((due - START) / (double) interval));
            clock.advanceTo(due);
          }
        } catch (InterruptedException e) {
          // The run is over.
        }
      }, "co-test-stepper");
      stepper.setDaemon(true);
      stepper.start();
      try {
        echo = run(spec).ops.get("echo");
      } finally {
        stepper.interrupt();
        stepper.join();
      }
      assertEquals(1000, peer.echoes());
    }
    // Arrivals 0..248 start when due and take 1 ms. Arrival 249 (due at 498 ms) meets the
    // freeze and ends at 999 ms: 501 ms. Arrivals 250 + m then start when the one before ends,
    // at 999 + m ms, though due at 500 + 2m: each waits 499 - m ms and takes 1 ms, 500 - m ms
    // in all, down to 1 ms at m = 499, when the user has caught up; the last 250 start when due.
    Histogram latency = new Histogram(3);
    latency.recordValueWithCount(MS, 249 + 1 + 250);
    for (long ms = 2; ms <= 501; ms++) {
      latency.recordValue(ms * MS);
    }
    assertDistribution(latency, echo.latency, "latency from the intended start");
    assertValue(491 * MS, echo.latency.getValueAtPercentile(99), "p99 from the intended start");
    assertValue(501 * MS, echo.latency.getMaxValue(), "max from the intended start");
    // From each exchange's own start only the freezing exchange is slow: the 999 queued
    // behind it are hidden.
    Histogram service = new Histogram(3);
    service.recordValueWithCount(MS, 999);
    service.recordValue(501 * MS);
    assertDistribution(service, echo.service, "service time");
    assertValue(MS, echo.service.getValueAtPercentile(99), "service time p99");
  }

  @Test
  void naiveClosedLoopSeesTheFreezeOnceAndTheCorrectionPutsBackTheExchangesItDidNotSend() throws Exception {
    ManualTicker clock = new ManualTicker(START);
    Results.Op echo;
    try (SteppingEchoPeer peer = new SteppingEchoPeer(clock, SERVICE, FREEZE_AT, FREEZE)) {
      LoadSpec spec = spec(peer, clock, "closed");
      spec.users = 1;
      spec.iterations = 1000;
      echo = run(spec).ops.get("echo");
      assertEquals(1000, peer.echoes());
    }
    // Back to back: 999 exchanges of 1 ms and the freezing one of 501 ms.
    Histogram raw = new Histogram(3);
    raw.recordValueWithCount(MS, 999);
    raw.recordValue(501 * MS);
    assertDistribution(raw, echo.latency, "raw latency");
    assertValue(MS, echo.latency.getValueAtPercentile(99), "raw p99");
    // The user's pace: one user x 1.5 s of run / 1,000 exchanges = 1.5 ms. At that pace it would
    // have sent 333 more while stuck, the k-th of them waiting 501 - 1.5k ms (1.5 ms at the
    // last). HdrHistogram corrects from the top of the recorded value's bucket, within 0.1% of
    // 501 ms.
    long interval = 1_500_000L;
    assertEquals(interval, echo.expectedIntervalNanos, "expected interval");
    Histogram corrected = new Histogram(3);
    corrected.add(raw);
    long frozen = raw.highestEquivalentValue(501 * MS);
    for (long k = 1; k <= 333; k++) {
      corrected.recordValue(frozen - k * interval);
    }
    assertDistribution(corrected, echo.corrected, "corrected latency");
    // Of 1,333, the 1,320th: 999 of 1 ms, then the 321st of those added, 501 - 13 x 1.5 ms.
    assertValue(481_500_000L, echo.corrected.getValueAtPercentile(99), "corrected p99");
  }

  private LoadSpec spec(SteppingEchoPeer peer, ManualTicker clock, String name) {
    LoadSpec spec = new LoadSpec();
    spec.scenarioClass = SignallingEchoScenario.class.getName();
    spec.mode = RunOptions.parseMode(mode);
    spec.addresses.add(peer.server.address());
    spec.quiet = true;
    spec.outDir = new File(dir.toFile(), name);
    spec.ticker = clock;
    return spec;
  }

  private static Results run(LoadSpec spec) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Results r = LoadRun.run(spec, new PrintStream(out, true, StandardCharsets.UTF_8));
    StringBuilder said = new StringBuilder(out.toString(StandardCharsets.UTF_8));
    r.ops.values().forEach(op -> said.append('\n').append(op.name).append(" errors ").append(op.errors));
    assertEquals(null, r.notInstrumented, said::toString);
    assertEquals(0, r.totalErrors(), said::toString);
    return r;
  }

  /**
   * {@code actual} holds exactly {@code expected}'s counts, bucket by bucket; on failure the
   * message names the first buckets that differ rather than printing both whole.
   */
  private static void assertDistribution(Histogram expected, Histogram actual, String what) {
    Map<Long, Long> want = distribution(expected);
    Map<Long, Long> got = distribution(actual);
    if (want.equals(got)) {
      return;
    }
    TreeMap<Long, Long> all = new TreeMap<>(want);
    got.forEach(all::putIfAbsent);
    StringBuilder diff = new StringBuilder();
    int shown = 0;
    for (long value : all.keySet()) {
      long w = want.getOrDefault(value, 0L);
      long g = got.getOrDefault(value, 0L);
      if (w != g && shown++ < 8) {
        diff.append(String.format(java.util.Locale.ROOT, "%n  %.3f ms: expected %d, was %d", value / 1e6, w, g));
      }
    }
    fail(String.format(java.util.Locale.ROOT, "%s: counts differ (expected %d values, p99 %.3f ms, max %.3f ms;"
        + " was %d values, p99 %.3f ms, max %.3f ms); first differences:%s", what, expected.getTotalCount(),
        expected.getValueAtPercentile(99) / 1e6, expected.getMaxValue() / 1e6, actual.getTotalCount(),
        actual.getValueAtPercentile(99) / 1e6, actual.getMaxValue() / 1e6, diff));
  }

  /** The histogram's counts by value (each value the lowest of its bucket). */
  private static Map<Long, Long> distribution(Histogram h) {
    Map<Long, Long> counts = new TreeMap<>();
    for (HistogramIterationValue v : h.recordedValues()) {
      counts.put(h.lowestEquivalentValue(v.getValueIteratedTo()), v.getCountAtValueIteratedTo());
    }
    return counts;
  }

  /** {@code actual}, a histogram's figure, is {@code expected} to its 3 significant digits. */
  private static void assertValue(long expected, long actual, String what) {
    assertEquals(expected, actual, expected / 1000.0, what);
  }
}
