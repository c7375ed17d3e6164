package io.weft.perf.micro;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.continuations.spi.Suspend;
import io.weft.perf.micro.session.PingPongTask;
import io.weft.transport.Timeout;
import io.weft.transport.spi.Deadlines;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One suspend + resume of a Weft continuation through the scheduler's ready queue, measured as
 * {@link VirtualThreadParkBenchmark} measures a virtual thread's park + unpark: two sessions of
 * a {@code SessionRunner} in {@code CONTINUATIONS(1)} hand a turn back and forth, each waiting
 * {@code depth} frames down in {@code Suspend.await} on a registration the other side fires.
 * Every operation is a real suspend (stack captured and unwound), a trip through the ready
 * queue, and a resume on the one worker. Per suspend + resume (two per round trip).
 *
 * <p>{@code waitTimeoutMs}: 0 waits with no timeout ({@code Deadlines.FOREVER}); otherwise every
 * wait arms a timeout of that length, as a real transport always does, and the figure includes
 * arming it and letting it go.
 */
@State(Scope.Benchmark)
public class ContinuationSuspendBenchmark extends AbstractMicrobenchmark {
  static final int ROUND_TRIPS = 10_000;
  static final String TASK_PACKAGE = "io.weft.perf.micro.session";

  @Param({"1", "3", "10"})
  public int depth;

  @Param({"0", "5000"})
  public long waitTimeoutMs;

  /**
   * true (with a depth of 2 or more): each session waits inside a {@code synchronized} block on a
   * monitor of its own, in the last of its {@code depth} frames, which the rewrite turns into a
   * session monitor, so the figure includes an uncontended session monitor taken and released per
   * suspend + resume (and the thread's monitor left at each suspend and taken again at each
   * resume), and that frame running interpreted. Not in the default set: run with
   * {@code -p synchronizedWait=false,true} to compare.
   */
  @Param({"false"})
  public boolean synchronizedWait;

  /**
   * true: each session sets a {@code ThreadLocal} of its own before every wait and reads it after,
   * so the figure includes the thread-local taken off the thread at each suspend and put back at
   * each resume. Not in the default set: run with {@code -p threadLocal=false,true} to compare.
   */
  @Param({"false"})
  public boolean threadLocal;

  /**
   * true: each of the {@code depth} frames calls the next through an interface of the task's
   * ({@code Turns}) rather than a private method, so every resume dispatches a virtual
   * call again: the figure includes the resume-time check that the object called is the one the
   * frame saved and that the method it reaches was rewritten. Not in the default set: run with
   * {@code -p throughInterface=false,true} to compare.
   */
  @Param({"false"})
  public boolean throughInterface;

  private ContinuationPingPong pair;
  private SessionRunner runner;
  private Thread runThread;
  private volatile RunResult<String> result;
  private volatile Throwable runFailure;

  @Setup(Level.Trial)
  public void startSessions() {
    pair = new ContinuationPingPong();
    // Unpaced: the figure is of the sessions, not of a connect ramp; the servers here listen deep.
    runner = SessionRunner.builder().connectPacing(ConnectPacing.NONE)
        .mode(Mode.continuations(1))
        .connector(new NoTransportConnector())
        .allowBlockingConnector(true)
        .address(InetSocketAddress.createUnresolved("no-transport", 1))
        .timeout(Timeout.NONE)
        .instrument(TASK_PACKAGE)
        .build();
    long waitNanos = waitTimeoutMs == 0L ? Deadlines.FOREVER : TimeUnit.MILLISECONDS.toNanos(waitTimeoutMs);
    runThread = new Thread(() -> {
      try {
        result = runner.run(PingPongTask.class, 2, pair, depth, waitNanos, synchronizedWait, threadLocal,
            throughInterface);
        pair.ended(result.allSucceeded() ? "both sessions returned" : "failed: " + result.failures());
      } catch (Throwable t) {
        runFailure = t;
        pair.ended(t.toString());
      }
    }, "continuation-ping-pong-run");
    runThread.setDaemon(true);
    runThread.start();
  }

  @TearDown(Level.Trial)
  public void stopSessions() throws InterruptedException {
    pair.stop();
    runThread.join(TimeUnit.SECONDS.toMillis(10));
    runner.close();
    if (runFailure != null) {
      throw new IllegalStateException("the run failed", runFailure);
    }
    if (result == null) {
      throw new IllegalStateException("the sessions did not end within 10 s of stop");
    }
    if (!result.allSucceeded()) {
      throw new IllegalStateException("sessions failed: " + result.failures());
    }
    if (pair.timeouts() > 0) {
      throw new IllegalStateException(pair.timeouts() + " waits timed out: the timer fired early");
    }
  }

  @Benchmark
  @OperationsPerInvocation(2 * ROUND_TRIPS)
  public void suspendResume() {
    pair.run(ROUND_TRIPS);
  }
}
