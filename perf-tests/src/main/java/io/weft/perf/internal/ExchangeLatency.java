package io.weft.perf.internal;

import java.util.function.LongConsumer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Where the benchmark clients record each exchange's latency (nanoseconds, write to checked
 * reply): an HdrHistogram {@link Recorder}, safe to record into from any number of threads at
 * once, with a clock start. An exchange that began before {@link #startClockAt} counts from
 * there: the scaling harness holds every first reply until all sessions are waiting, and the
 * time a session spent waiting for its peers to connect is not that exchange's latency.
 *
 * <p>As a {@link LongConsumer} it takes an exchange's start and records it as ending now: a
 * JDK type, so code loaded by Weft's instrumenting class loader can be handed one.
 */
public final class ExchangeLatency implements LongConsumer {
  private final Recorder recorder = new Recorder(3);
  private volatile long notBefore = System.nanoTime();

  /** Records one exchange that started at {@code startNanos} and ended at {@code endNanos}. */
  public void record(long startNanos, long endNanos) {
    long from = notBefore;
    if (startNanos - from > 0) {
      from = startNanos;
    }
    recorder.recordValue(Math.max(0L, endNanos - from));
  }

  /** Records one exchange that started at {@code startNanos} and ends now. */
  @Override
  public void accept(long startNanos) {
    record(startNanos, System.nanoTime());
  }

  /** Exchanges recorded from now on count from {@code nanos} at the earliest. */
  public void startClockAt(long nanos) {
    notBefore = nanos;
  }

  /** Everything recorded since the last call (or since creation). */
  public Histogram intervalHistogram() {
    return recorder.getIntervalHistogram();
  }
}
