package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.ConnectWindow;
import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.continuations.SessionSemaphore;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.mina.testclient.EchoLinesTask;
import io.weft.transport.mina.testclient.SecondConnectorTask;
import io.weft.transport.mina.testclient.SemaphoreTimeoutTask;
import io.weft.transport.mina.testclient.StolenPermitTask;
import io.weft.transport.mina.testclient.TimedReadTask;
import io.weft.transport.netty.NettyConnector;
import io.weft.transport.netty.SuspendingNettyConnector;
import io.weft.testsupport.EchoServer;
import io.weft.transport.spi.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The clock set on a connector's builder is the run's one clock: its connects, its transports'
 * operation timeouts and session deadlines, and in {@code CONTINUATIONS} the run's wait timer, its
 * connect pacing and {@code SessionSemaphore}'s waits all read it. The clock here starts a year
 * behind the system's, so that any wait that mixes it with {@code System.nanoTime()} (a session
 * start read on one, the deadline on the other) ends at once or never; a stepper thread moves it
 * on in big steps, so that a timeout of an hour of it passes in moments of real time, and nothing
 * else can end a wait by time: every outcome is the clock's, whatever the machine's load.
 *
 * <p>Twenty sessions, more than {@link ConnectPacing#DEFAULT}'s burst of ten: the last ten wait
 * for their turn, a wait computed on the run's clock and, in {@code CONTINUATIONS}, timed by it.
 * In {@code THREADS} a blocked wait parks for its time in real time and reads the clock when it
 * wakes (see {@code Ticker}), so the timeouts there are not the clock's to end; the exchanges
 * are, with their session deadlines read on it.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(InjectedClockTest.Case.class)
@org.junit.jupiter.api.Timeout(value = 120, threadMode = ThreadMode.SEPARATE_THREAD)
class InjectedClockTest {
  enum Case {
    CONTINUATIONS_MINA(Mode.continuations(1), t -> SuspendingMinaConnector.builder().ticker(t).tcp()),
    CONTINUATIONS_NETTY(Mode.continuations(1), t -> SuspendingNettyConnector.builder().ticker(t).tcp()),
    CONTINUATIONS_ON_WORKERS_MINA(Mode.continuations(2).resumeOnWorkers(),
        t -> SuspendingMinaConnector.builder().ticker(t).tcp()),
    /** A spin before suspending is real time: on a clock held still, one bounded on it never ends. */
    CONTINUATIONS_ON_WORKERS_SPINNING_MINA(Mode.continuations(2).resumeOnWorkers(),
        t -> SuspendingMinaConnector.builder().ticker(t).spinBeforeSuspend(50, TimeUnit.MICROSECONDS).tcp()),
    THREADS_MINA(Mode.THREADS, t -> MinaConnector.builder().ticker(t).tcp()),
    THREADS_NETTY(Mode.THREADS, t -> NettyConnector.builder().ticker(t).tcp()),
    THREADS_SUSPENDING_NETTY(Mode.THREADS, t -> SuspendingNettyConnector.builder().ticker(t).tcp());

    final Mode mode;
    final Function<Ticker, Connector> connectors;

    Case(Mode mode, Function<Ticker, Connector> connectors) {
      this.mode = mode;
      this.connectors = connectors;
    }

    boolean continuations() {
      return mode.kind() == Mode.Kind.CONTINUATIONS;
    }
  }

  @Parameter
  Case c;

  private static final String CLIENT = "io.weft.transport.mina.testclient";
  private static final int SESSIONS = 20;
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);
  private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);
  private static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);

  /** A clock that moves only when told, a year behind the system's; counts its readings. */
  static final class SteppedClock implements Ticker {
    private final AtomicLong now = new AtomicLong(System.nanoTime() - TimeUnit.DAYS.toNanos(365));
    private final AtomicLong reads = new AtomicLong();

    @Override
    public long nanoTime() {
      reads.incrementAndGet();
      return now.get();
    }

    void step(long nanos) {
      now.addAndGet(nanos);
    }

    long reads() {
      return reads.get();
    }
  }

  private final SteppedClock clock = new SteppedClock();
  private volatile boolean stepping = true;
  private Thread stepper;
  private Connector connector;
  private EchoServer server;

  @BeforeEach
  void start() throws Exception {
    connector = c.connectors.apply(clock);
    server = EchoServer.tcp();
  }

  @AfterEach
  void stop() throws Exception {
    stepping = false;
    try {
      if (stepper != null) {
        stepper.join();
      }
      if (connector != null) {
        connector.close();
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  /**
   * Moves the clock on by {@code small} every few real microseconds until {@code then} holds, and
   * by {@code big} from then on, until the test ends: time passes only on the clock, and only
   * forward. The small steps let the paced sessions connect (their turns come within 20 ms of
   * it); the big ones come once every session waits for what only time ends, so that nothing
   * bounded by an hour of the clock ends before it is there, however slowly the machine runs.
   * The wait timer sees a step at its next pass (at most a second of real time later).
   */
  private void step(long small, long big, BooleanSupplier then) {
    stepper = new Thread(() -> {
      boolean waiting = true;
      while (stepping) {
        waiting = waiting && !then.getAsBoolean();
        clock.step(waiting ? small : big);
        LockSupport.parkNanos(200_000L);
      }
    }, "clock-stepper");
    stepper.setDaemon(true);
    stepper.start();
  }

  private SessionRunner runner(Timeout timeout) {
    return runner(timeout, ConnectPacing.DEFAULT, SESSIONS);
  }

  private SessionRunner runner(Timeout timeout, ConnectPacing pacing, int inFlight) {
    return SessionRunner.builder().mode(c.mode).connector(connector).allowBlockingConnector(true)
        .address(server.address()).connectPacing(pacing).maxInFlight(inFlight)
        .timeout(timeout).instrument(CLIENT).build();
  }

  /**
   * Exchanges, twenty sessions at once, under an operation timeout of an hour and a session
   * deadline of two, both on the connector's clock a year behind the system's: every exchange
   * completes. A session deadline read on the system clock against a start read on this one would
   * have passed a year ago, and every connect would fail at once.
   */
  @Test
  void exchangesBeyondThePacingBurstSucceedOnTheConnectorsClock() throws Exception {
    step(MILLI, MILLI, () -> false);
    Timeout timeout = Timeout.of(1, TimeUnit.HOURS).withSessionDeadline(2, TimeUnit.HOURS);
    try (SessionRunner runner = runner(timeout)) {
      RunResult<String> result = runner.run(EchoLinesTask.class, SESSIONS, 3);
      for (Outcome<String> o : result.outcomes()) {
        assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
      }
    }
    assertEquals(3L * SESSIONS, server.linesEchoed(), "exchanges the server answered");
    assertTrue(clock.reads() >= SESSIONS, "the connector's clock was read " + clock.reads() + " times");
  }

  /**
   * A server that never answers; each session sends its line with no timeout, then reads under an
   * operation timeout of an hour of the connector's clock: every read times out after that hour,
   * as the clock tells, in moments of real time. Timed by the system's clock, the run would take
   * an hour.
   */
  @Test
  void readsTimeOutByTheConnectorsClock() throws Exception {
    everyReadTimesOut(0L, "read timed out after 3600 s waiting for a line");
  }

  /**
   * As above with a session deadline of half an hour as well: it passes first, measured from the
   * connect's start on the connector's clock, and the message says so.
   */
  @Test
  void sessionDeadlinesPassByTheConnectorsClock() throws Exception {
    everyReadTimesOut(30 * MINUTE, "read timed out: session deadline of 1800 s passed");
  }

  /**
   * Every session sends its line to a server that never answers, then reads under an operation
   * timeout of an hour and a session deadline of {@code deadline} (0 for none): every one fails
   * with a timeout whose message starts with {@code message}.
   */
  private void everyReadTimesOut(long deadline, String message) throws Exception {
    assumeTrue(c.continuations(), "a blocked thread parks its wait in real time");
    server.hold();
    step(MILLI, MINUTE, () -> server.linesReceived() == SESSIONS);
    try (SessionRunner runner = runner(Timeout.NONE)) {
      RunResult<String> result = runner.run(TimedReadTask.class, SESSIONS, HOUR, deadline);
      for (Outcome<String> o : result.outcomes()) {
        assertEquals(Outcome.Status.FAILED, o.status(), () -> "session " + o.index() + ": " + o.value());
        assertInstanceOf(TransportTimeoutException.class, o.failure());
        assertTrue(o.failure().getMessage().startsWith(message), () -> "session " + o.index() + ": " + o.failure());
      }
    }
  }

  /**
   * A session waiting for a permit that never comes, for an hour of the connector's clock: the
   * wait ends by that clock, in {@code CONTINUATIONS} through the run's timer.
   */
  @Test
  void semaphoreWaitsEndByTheConnectorsClock() throws Exception {
    assumeTrue(c.continuations(), "a blocked thread parks its wait in real time");
    // No timeout of the transport's: the acquire's hour is the only wait that time ends.
    step(MILLI, MINUTE, () -> server.sessionsOpened() == SESSIONS);
    SessionSemaphore none = new SessionSemaphore(0);
    try (SessionRunner runner = runner(Timeout.NONE)) {
      RunResult<String> result = runner.run(SemaphoreTimeoutTask.class, SESSIONS, none, HOUR);
      for (Outcome<String> o : result.outcomes()) {
        assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
        assertEquals("timed out", o.value());
      }
    }
  }

  /**
   * Connect pacing counts on the connector's clock, in every mode. One connect an hour, ten at
   * once, ten sessions in flight: the first ten connect at once and their exchanges are held by
   * the server; the clock, stopped otherwise, jumps eleven hours; the server answers, and the next ten
   * sessions, admitted as the first ones end, find the pacing's burst full again: they connect at
   * once, and the run ends with no step of the clock more (eleven hours: an hour more than the
   * ten turns need, so that the last one is not on the edge). A pacer on the system's clock would have
   * seen no time pass and given them turns hours apart that no clock step ever brings: the run
   * would hang, timed by the run's timer in {@code CONTINUATIONS} and parked for real hours in
   * {@code THREADS}.
   */
  @Test
  void pacingTurnsComeByTheConnectorsClock() throws Exception {
    server.hold();
    int burst = SESSIONS / 2;
    try (SessionRunner runner = runner(Timeout.NONE, ConnectPacing.perSecond(1.0 / 3600.0, burst), burst)) {
      Thread jump = new Thread(() -> {
        while (server.linesReceived() < burst) {
          LockSupport.parkNanos(1_000_000L);
        }
        clock.step(11 * HOUR);
        server.release();
      }, "clock-jump");
      jump.setDaemon(true);
      jump.start();
      RunResult<String> result = runner.run(EchoLinesTask.class, SESSIONS, 1);
      jump.join();
      for (Outcome<String> o : result.outcomes()) {
        assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
      }
    }
    assertEquals(SESSIONS, server.linesEchoed(), "exchanges the server answered");
  }

  /**
   * A session that connects through a second connector on the same clock as the run's works in
   * every mode. Through one on another clock (the system's, the default), a {@code CONTINUATIONS}
   * session's connect is refused, saying why: the run's timer would time that connector's waits by
   * a clock they were not computed on. Off a continuation every connector's waits keep to their
   * own clock, and both work.
   */
  @Test
  void aSecondConnectorMustShareTheRunsClock() throws Exception {
    step(MILLI, MILLI, () -> false);
    try (Connector same = c.connectors.apply(clock);
        Connector other = c.connectors.apply(Ticker.system());
        SessionRunner runner = runner(Timeout.of(1, TimeUnit.HOURS))) {
      RunResult<String> shared = runner.run(SecondConnectorTask.class, 2, same, server.address());
      for (Outcome<String> o : shared.outcomes()) {
        assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
        assertEquals("first " + o.index() + ", second " + o.index(), o.value());
      }
      RunResult<String> mixed = runner.run(SecondConnectorTask.class, 2, other, server.address());
      for (Outcome<String> o : mixed.outcomes()) {
        if (!c.continuations() || !(other instanceof io.weft.continuations.spi.SuspendingConnector)) {
          assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
          continue;
        }
        assertEquals(Outcome.Status.FAILED, o.status(), () -> "session " + o.index() + ": " + o.value());
        assertInstanceOf(IllegalStateException.class, o.failure());
        assertTrue(o.failure().getMessage().startsWith("connect to " + server.address() + " not made: the connector's"
            + " clock (Ticker.system()) is not the clock of the session's run"), o.failure().getMessage());
      }
    }
  }

  /**
   * A semaphore wait woken part-way by a permit that another session takes straight back recomputes
   * what is left on the run's clock. Session 0 waits an hour for a permit; the clock moves 30
   * minutes; session 1 gives a permit and takes it back, waking session 0 to find none; the clock
   * moves 31 minutes more, past the hour: the wait ends, timed out. With the wait's deadline read on
   * the system clock, the wake-up would find an hour left, and no step would ever end it. One worker,
   * sessions resumed on it: session 1 runs only once session 0 has suspended.
   */
  @Test
  void aSemaphoreWaitWokenPartWayEndsByTheConnectorsClock() throws Exception {
    assumeTrue(c == Case.CONTINUATIONS_MINA, "one worker, its sessions resumed on it: one case");
    SessionSemaphore semaphore = new SessionSemaphore(0);
    SessionSemaphore entered = new SessionSemaphore(0);
    SessionSemaphore parked = new SessionSemaphore(0);
    SessionSemaphore go = new SessionSemaphore(0);
    // The second move is session 1's, after it took the permit back and before it ends: session 0,
    // woken, runs after it (one worker) and reads the clock only after the move. A move made from
    // another thread could fall between session 0's working out of the time left and its arming of
    // the timer, which would then wait past the clock's last move (review2-perf9-s20).
    Runnable afterSteal = () -> clock.step(31 * MINUTE);
    Thread driver = new Thread(() -> {
      try {
        parked.acquire();
        clock.step(30 * MINUTE);
        go.release();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, "clock-driver");
    driver.setDaemon(true);
    try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1).resumeOnWorkers())
        .connector(connector).address(server.address()).timeout(Timeout.NONE).instrument(CLIENT).build()) {
      driver.start();
      RunResult<String> result = runner.run(StolenPermitTask.class, 2, semaphore, entered, parked, go, afterSteal, HOUR);
      driver.join();
      for (Outcome<String> o : result.outcomes()) {
        assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
      }
      assertEquals("timed out", result.outcomes().get(0).value());
      assertEquals("stole", result.outcomes().get(1).value());
    }
  }

  /**
   * A connect window of two places, held an hour at most, over a server that holds every reply: a
   * place comes free only when the clock passes the hour since its session's connect. The clock moves
   * by 61 minutes each millisecond until every session has sent its line, so the window frees its
   * places two by two; then the server answers. A window on the system clock would free no place, and
   * the run would hang. In {@code CONTINUATIONS} only: a blocked thread waits for a place in real time.
   */
  @Test
  void connectWindowPlacesFreeByTheConnectorsClock() throws Exception {
    assumeTrue(c.continuations(), "a blocked thread waits for a place in real time");
    server.hold();
    int places = 2;
    // The clock keeps moving, an hour and a minute each millisecond of real time, until every session
    // has sent: a move can fall between a waiting session's working out of its wait and the arming of
    // its timer, and a later move must still reach that timer (review2-perf9-s20). A window on the
    // system clock frees no place in the test's time however the clock moves.
    Thread driver = new Thread(() -> {
      while (server.linesReceived() < SESSIONS) {
        clock.step(61 * MINUTE);
        LockSupport.parkNanos(1_000_000L);
      }
      server.release();
    }, "clock-driver");
    driver.setDaemon(true);
    try (SessionRunner runner = SessionRunner.builder().mode(c.mode).connector(connector).allowBlockingConnector(true)
        .address(server.address()).connectPacing(ConnectPacing.NONE)
        .connectWindow(ConnectWindow.of(places, java.time.Duration.ofHours(1))).maxInFlight(SESSIONS)
        .timeout(Timeout.NONE).instrument(CLIENT).build()) {
      driver.start();
      RunResult<String> result = runner.run(EchoLinesTask.class, SESSIONS, 1);
      driver.join();
      for (Outcome<String> o : result.outcomes()) {
        assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
      }
    }
    assertEquals(SESSIONS, server.linesEchoed(), "exchanges the server answered");
  }
}
