package io.weft.perf.micro;

import io.weft.transport.spi.VirtualThreads;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One park + unpark of a virtual thread, the yardstick for Weft's suspend + resume: two virtual
 * threads on one carrier hand a turn back and forth, so every operation is a real unmount,
 * a trip through the scheduler's queue and a remount, with {@code depth} frames on the stack.
 * The figure is per park/unpark pair (two per round trip); the driver's own wake-up is spread
 * over {@value #ROUND_TRIPS} round trips.
 *
 * <p>Needs JDK 21+. On 17, {@link BenchmarkMain} leaves it out and says so; run directly, its
 * setup fails with the reason.
 */
@State(Scope.Benchmark)
public class VirtualThreadParkBenchmark extends AbstractMicrobenchmark {
  static final int ROUND_TRIPS = 10_000;

  @Param({"1", "3", "10"})
  public int depth;

  private ParkPingPong pair;

  @Setup(Level.Trial)
  public void startThreads() {
    if (!VirtualThreads.available()) {
      throw new UnsupportedOperationException(
          "VirtualThreadParkBenchmark skipped: " + VirtualThreads.unavailableReason());
    }
    pair = ParkPingPong.start(depth, VirtualThreads::start);
  }

  @TearDown(Level.Trial)
  public void stopThreads() throws InterruptedException {
    if (pair != null) {
      pair.stop();
    }
  }

  @Benchmark
  @OperationsPerInvocation(2 * ROUND_TRIPS)
  public void parkUnpark() {
    pair.run(ROUND_TRIPS);
  }
}
