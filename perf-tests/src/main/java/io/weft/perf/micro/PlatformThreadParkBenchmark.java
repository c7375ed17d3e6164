package io.weft.perf.micro;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The baseline for {@link VirtualThreadParkBenchmark}: the same ping-pong between two platform
 * threads, so every operation is an operating-system wake-up (and, on more than one core, a
 * cross-core hand-off). Per park/unpark pair.
 */
@State(Scope.Benchmark)
public class PlatformThreadParkBenchmark extends AbstractMicrobenchmark {
  static final int ROUND_TRIPS = 1_000;

  @Param({"1", "3", "10"})
  public int depth;

  private ParkPingPong pair;

  @Setup(Level.Trial)
  public void startThreads() {
    pair = ParkPingPong.start(depth, task -> {
      Thread thread = new Thread(task, "park-ping-pong");
      thread.setDaemon(true);
      thread.start();
      return thread;
    });
  }

  @TearDown(Level.Trial)
  public void stopThreads() throws InterruptedException {
    pair.stop();
  }

  @Benchmark
  @OperationsPerInvocation(2 * ROUND_TRIPS)
  public void parkUnpark() {
    pair.run(ROUND_TRIPS);
  }
}
