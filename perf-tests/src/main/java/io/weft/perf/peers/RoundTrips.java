package io.weft.perf.peers;

import java.util.function.LongConsumer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Where the in-process clients record each round trip (INCR sent to its reply parsed), in
 * nanoseconds: an HdrHistogram {@link Recorder}, wait-free and safe from any number of threads.
 * Its count is also the count of completed round trips. As a {@link LongConsumer} it takes a
 * round trip's start and records it as ending now: a JDK type, so a session task loaded by
 * Weft's instrumenting class loader can be handed one.
 */
final class RoundTrips implements LongConsumer {
  private final Recorder recorder = new Recorder(3);

  @Override
  public void accept(long startNanos) {
    recorder.recordValue(Math.max(0L, System.nanoTime() - startNanos));
  }

  /** Everything recorded since the last call (or since creation). */
  Histogram interval() {
    return recorder.getIntervalHistogram();
  }
}
