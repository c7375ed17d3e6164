package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.load.internal.LoadRun;
import io.weft.load.internal.LoadSpec;
import io.weft.load.internal.Plan;
import io.weft.load.internal.Results;
import io.weft.load.testscenario.SignallingEchoScenario;
import io.weft.transport.TransportTimeoutException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A run's waits are on the run's own clock: a test that injects a {@link ManualTicker} moves the
 * users' think time and backoffs and the transports' read timeouts with it, not with real time. A
 * {@link SteppingEchoPeer} moves the clock by 1 ms per echo; nothing else moves it but the test.
 *
 * <p>The real-time waits below are poll intervals and hang guards: on this code a user's wait can
 * end only when the test moves the clock, whatever the machine's load; a wait for something that
 * must not happen (the next iteration before the clock moved) gives a run on the system clock the
 * time to show it (that is how the code before this test fails it).
 */
@ParameterizedClass(name = "{0}")
@ValueSource(strings = {"threads", "continuations:1"})
@Timeout(120)
class RunClockTest {
  private static final long MS = 1_000_000L;
  private static final long START = 4_000_000_000_000L;
  /** Think time: 5 ms of the run's clock (and as much of real time on a run that took real time). */
  private static final long THINK = 5 * MS;
  /** What the test gives a wrong run (one that waits in real time) to show itself, in real milliseconds. */
  private static final long GRACE_MILLIS = 1_000L;

  @Parameter String mode;

  @Test
  void thinkTimeEndsOnlyWhenTheRunsClockHasPassedIt() throws Exception {
    ManualTicker clock = new ManualTicker(START);
    ExecutorService runs = Executors.newSingleThreadExecutor();
    try (SteppingEchoPeer peer = new SteppingEchoPeer(clock, MS)) {
      LoadSpec spec = spec(peer, clock);
      spec.iterations = 3;
      spec.thinkNanos = THINK;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Future<Results> run = runs.submit(() -> LoadRun.run(spec, new PrintStream(out, true, StandardCharsets.UTF_8)));
      for (int n = 1; n <= 2; n++) {
        holdsUntilTheClockPasses(peer, clock, n, THINK, "think time");
      }
      Results r = run.get(60, TimeUnit.SECONDS);
      String said = out.toString(StandardCharsets.UTF_8);
      assertEquals(0, r.totalErrors(), said);
      assertEquals(3, r.ops.get("echo").latency.getTotalCount(), said);
      List<Long> echoes = peer.echoArrivals();
      List<Long> dones = peer.doneArrivals();
      for (int n = 1; n <= 2; n++) {
        assertTrue(echoes.get(n) - dones.get(n - 1) >= THINK,
            "echo " + (n + 1) + " at " + (echoes.get(n) - START) + " ns, done " + n + " at " + (dones.get(n - 1) - START));
      }
    } finally {
      endWaits(clock, runs);
    }
  }

  @Test
  void aReadTimesOutWhenTheRunsClockPassesTheTimeoutNotBefore() throws Exception {
    // Plain sockets (threads and virtual threads over TCP, SocketConnector) time out in real time,
    // by the socket's own timer.
    assumeTrue(mode.startsWith("continuations"),
        "only the suspending connector's reads are timed on the run's clock (plain sockets, SocketConnector, in real time)");
    long timeout = 3_600_000L * MS;
    ManualTicker clock = new ManualTicker(START);
    ExecutorService runs = Executors.newSingleThreadExecutor();
    try (SteppingEchoPeer peer = new SteppingEchoPeer(clock, MS)) {
      peer.server.hold(); // the first echo is never answered
      LoadSpec spec = spec(peer, clock);
      spec.iterations = 1;
      spec.timeoutNanos = timeout;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Future<Results> run = runs.submit(() -> LoadRun.run(spec, new PrintStream(out, true, StandardCharsets.UTF_8)));
      assertTrue(peer.awaitEchoes(1, 60_000L), "the echo never came");
      long sent = peer.echoArrivals().get(0);
      // Waiting for the reply; the clock is 1 ms past the send: the read must not time out.
      assertThrows(TimeoutException.class, () -> run.get(GRACE_MILLIS, TimeUnit.MILLISECONDS),
          () -> "the run ended with its read waiting and the clock not moved: " + out.toString(StandardCharsets.UTF_8));
      clock.advanceTo(sent + timeout + MS);
      // The runtime's timer sees the step within a second. A read that took its start reading only
      // after the step (its user stalled a second) has its deadline a timeout past it: step again,
      // bounded, as the think and backoff cases do. A step can only end the read that is waiting.
      Results r;
      for (int steps = 0; ; steps++) {
        try {
          r = run.get(10, TimeUnit.SECONDS);
          break;
        } catch (TimeoutException e) {
          if (steps >= 4) {
            peer.close(); // ends a read that waits in real time, so that the run ends
            throw new AssertionError("the read did not time out once the run's clock passed its timeout", e);
          }
          clock.advance(timeout + MS);
        }
      }
      String said = out.toString(StandardCharsets.UTF_8);
      assertEquals(1L, r.ops.get("echo").errors.getOrDefault(TransportTimeoutException.class.getName(), 0L),
          said + r.ops.get("echo").errors);
    } finally {
      endWaits(clock, runs);
    }
  }

  /**
   * The backoff after a failed iteration (its first echo answered wrong, so the scenario throws and
   * the connection ends) is on the run's clock: the reconnect and the next echo wait until the test
   * moves the clock past the first backoff (10 ms).
   */
  @Test
  void aBackoffAfterAFailedIterationEndsOnlyWhenTheRunsClockHasPassedIt() throws Exception {
    ManualTicker clock = new ManualTicker(START);
    ExecutorService runs = Executors.newSingleThreadExecutor();
    try (SteppingEchoPeer peer = new SteppingEchoPeer(clock, MS)) {
      peer.garble(1);
      LoadSpec spec = spec(peer, clock);
      spec.iterations = 2;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Future<Results> run = runs.submit(() -> LoadRun.run(spec, new PrintStream(out, true, StandardCharsets.UTF_8)));
      holdsUntilTheClockPasses(peer, clock, 1, Plan.BACKOFF_MIN_NANOS, "backoff");
      Results r = run.get(60, TimeUnit.SECONDS);
      String said = out.toString(StandardCharsets.UTF_8);
      assertEquals(1, r.totalErrors(), said);
      assertEquals(2, peer.echoes(), said);
      assertTrue(peer.echoArrivals().get(1) - peer.doneArrivals().get(0) >= Plan.BACKOFF_MIN_NANOS,
          () -> "echo 2 at " + (peer.echoArrivals().get(1) - START) + " ns, done 1 at "
              + (peer.doneArrivals().get(0) - START));
    } finally {
      endWaits(clock, runs);
    }
  }

  /**
   * After iteration {@code n}'s {@code done}, the user waits {@code waitNanos} of the run's clock
   * ({@code what}): the next echo must not come while the clock stands still (1 s of real time for
   * a run that waits in real time to show it), and must come once the test moved it past the wait.
   */
  private static void holdsUntilTheClockPasses(SteppingEchoPeer peer, ManualTicker clock, int n, long waitNanos,
      String what) throws InterruptedException {
    peer.awaitDone(n);
    long waiting = clock.nanoTime();
    assertFalse(peer.awaitEchoes(n + 1, GRACE_MILLIS),
        "iteration " + (n + 1) + " began while the run's clock had not moved past the " + what);
    clock.advanceTo(waiting + waitNanos);
    // The runtime's timer sees the step within a second. A user that read the clock for its wait
    // only after the step (a stall of a second) waits on: step again (bounded).
    for (int steps = 0; !peer.awaitEchoes(n + 1, 10_000L); steps++) {
      assertTrue(steps < 5, "iteration " + (n + 1) + " did not begin after the clock passed its " + what);
      clock.advance(waitNanos);
    }
  }

  /**
   * After a case (the peer is closed by then): a run a failed assertion left behind waits on a clock
   * nobody moves; two hours of it end every pause, backoff and the 1-h read, so that it does not
   * re-park for the rest of the JVM.
   */
  private static void endWaits(ManualTicker clock, ExecutorService runs) {
    clock.advance(2 * 3_600_000L * MS);
    runs.shutdownNow();
  }

  private LoadSpec spec(SteppingEchoPeer peer, ManualTicker clock) {
    LoadSpec spec = new LoadSpec();
    spec.scenarioClass = SignallingEchoScenario.class.getName();
    spec.mode = RunOptions.parseMode(mode);
    spec.addresses.add(peer.server.address());
    spec.users = 1;
    spec.quiet = true;
    spec.ticker = clock;
    return spec;
  }
}
