package io.weft.load.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.load.record.OpRecorder;
import org.junit.jupiter.api.Test;

/**
 * The warm-up runs the recording code too: an operation that ends before the measured window is
 * recorded into its operation's warm-up shadow, which no report reads, and one that ends at the
 * window's start or later into the operation itself. The run's clock is a counter the test sets.
 */
class WarmUpRecordingTest {
  private static final long MS = 1_000_000L;

  /** A clock that reads what the test last set; nothing parks on it here. */
  private static final class SetClock implements Ticker {
    long now = -5_000 * MS;

    @Override
    public long nanoTime() {
      return now;
    }

    @Override
    public void parkUntil(long deadlineNanos) {
      throw new AssertionError("nothing parks in this test");
    }
  }

  @Test
  void operationsEndingBeforeTheWindowGoToTheShadowAndFromItsStartToTheFigures() {
    SetClock clock = new SetClock();
    long first = clock.now;
    Metrics metrics = new Metrics(true, 10 * MS, clock);
    OpRecorder ops = metrics.newSession();
    metrics.iterationStarted();
    for (int i = 0; i < 12; i++) {
      // Operation i runs from i ms to i + 1 ms after the first iteration began.
      clock.now = first + i * MS;
      OpRecorder.Timer t = ops.start("GET");
      clock.now += MS;
      t.stop();
      metrics.iterationSucceeded();
    }
    Metrics.Op get = metrics.op("GET");
    Metrics.Op shadow = get.byPhase[Metrics.WARMING];
    // Operations 0..8 end before 10 ms; 9 ends at 10 ms exactly, in the window, as do 10 and 11.
    assertEquals(9, shadow.latency.getIntervalHistogram().getTotalCount());
    assertEquals(9, shadow.service.getIntervalHistogram().getTotalCount());
    assertEquals(3, get.latency.getIntervalHistogram().getTotalCount());
    assertEquals(3, get.service.getIntervalHistogram().getTotalCount());
    assertEquals(3, metrics.cleanIterations());
  }

  @Test
  void withNoWarmUpEverythingIsInTheWindowEvenBeforeTheFirstIteration() {
    SetClock clock = new SetClock();
    Metrics metrics = new Metrics(false, 0L, clock);
    OpRecorder ops = metrics.newSession();
    ops.stop("GET", ops.start());
    metrics.iterationStarted();
    ops.stop("GET", ops.start());
    clock.now -= MS;
    ops.stop("GET", clock.now);
    assertEquals(3, metrics.op("GET").latency.getIntervalHistogram().getTotalCount());
    assertEquals(0, metrics.op("GET").byPhase[Metrics.WARMING].latency.getIntervalHistogram().getTotalCount());
  }
}
