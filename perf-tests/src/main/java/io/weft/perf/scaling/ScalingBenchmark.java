package io.weft.perf.scaling;

import io.weft.perf.internal.ExchangeLatency;
import io.weft.testsupport.EchoServer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The scaling run's wall time as a JMH single-shot benchmark: each operation is one whole run of
 * {@code sessions} concurrent sessions of the line tester (10 exchanges each) through one
 * {@link SessionDriver}, against test-support's echo server delaying every reply by 1 ms, so
 * the ideal is 10 ms whatever the sessions. JMH repeats the runs, forks and reports the error;
 * {@link Scaling} remains the tool for what JMH cannot hold in one score: heap per waiting
 * session, peak threads, latency percentiles, charts, and rows a machine limit stops.
 *
 * <p>Not part of the default {@code java -jar benchmarks.jar} run (the microbenchmarks are): name
 * it, e.g. {@code java -jar perf-tests/target/benchmarks.jar ScalingBenchmark -p sessions=10000}.
 * Over TCP both ends of every session are in the benchmark's JVM (two file descriptors each).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class ScalingBenchmark {
  static final int TRANSACTIONS = 10;
  static final long DELAY_MS = 1;

  @Param({"CONTINUATIONS_1", "VIRTUAL_THREADS", "THREADS", "CALLBACK"})
  public String driver;

  @Param({"1000", "10000"})
  public int sessions;

  @Param({"pipe", "tcp"})
  public String transport;

  private EchoServer server;
  private SessionDriver sessionDriver;
  private Workload workload;

  @Setup(Level.Trial)
  public void start() throws Exception {
    TransportKind kind = TransportKind.parse(transport);
    EchoServer.Builder builder = EchoServer.builder().delay(DELAY_MS, TimeUnit.MILLISECONDS);
    server = kind == TransportKind.PIPE ? builder.startVmPipe() : builder.loopbackHosts(4).startTcp();
    sessionDriver = Scaling.newDriver(driver, 16_000, Runtime.getRuntime().availableProcessors() + 1);
    workload = new Workload(kind, server.addresses(), sessions, TRANSACTIONS, 1_000, 300, TimeUnit.SECONDS,
        new ExchangeLatency());
    String unavailable = sessionDriver.unavailableReason(workload);
    if (unavailable != null) {
      stop();
      throw new UnsupportedOperationException(driver + ": " + unavailable);
    }
  }

  /** One whole run; fails the iteration if a session failed, so no figure hides a failure. */
  @Benchmark
  public RunReport run() throws Exception {
    RunReport report = sessionDriver.run(workload);
    if (report.failed > 0 || report.completed != sessions) {
      throw new IllegalStateException(driver + ": " + report.completed + " of " + sessions + " completed, "
          + report.failed + " failed, first: " + report.firstFailure);
    }
    return report;
  }

  @TearDown(Level.Trial)
  public void stop() {
    if (sessionDriver != null) {
      sessionDriver.close();
    }
    if (server != null) {
      server.close();
    }
  }
}
