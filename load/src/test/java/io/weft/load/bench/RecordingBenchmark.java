package io.weft.load.bench;

import io.weft.load.internal.Metrics;
import io.weft.load.record.OpRecorder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The driver's own cost per timed operation: a start/stop pair on a session's recorder, both
 * forms, each with its two clock reads and one record into the operation's HdrHistogram
 * {@code Recorder}. Target: at most 100 ns. Run with
 * {@code ./mvnw -q -pl load -am test-compile exec:exec -Dexec.executable=java -Djmh.args=RecordingBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class RecordingBenchmark {
  private OpRecorder ops;

  @Setup
  public void setUp() {
    ops = new Metrics(false).newSession();
  }

  @Benchmark
  public void timerStartStop() {
    OpRecorder.Timer t = ops.start("GET");
    t.stop();
  }

  @Benchmark
  public void startStopByName() {
    ops.stop("GET", ops.start());
  }

  /** The clock alone, two reads, for scale. */
  @Benchmark
  public long twoClockReads() {
    return System.nanoTime() - System.nanoTime();
  }
}
