package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.EchoServer;
import io.weft.testsupport.MovingTicker;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.netty.testclient.AwaitInputAfterReadTask;
import io.weft.transport.netty.testclient.AwaitInputTask;
import io.weft.transport.netty.testclient.ClockMovesAtReadTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A suspending read's wait is timed from the clock reading it was worked out on: its operation
 * timeout and its session deadline end when the connector's clock says so, even when the clock
 * gets there between the read's start and the arming of its timer. Timed from a second reading,
 * that move would put the timer's deadline past the clock's last move, and the read would never
 * end ({@link MovingTicker} makes the move at exactly that point; the JUnit timeout only bounds how
 * long such a hang runs before the test fails). A server that holds its replies (one case releases
 * one), and nothing moves the clock but the tasks' moves.
 */
class ReadTimedFromItsReadingTest {
  private static final String CLIENT = "io.weft.transport.netty.testclient";
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);
  private EchoServer server;

  @BeforeEach
  void start() throws Exception {
    server = EchoServer.tcp();
    server.hold();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** One session of {@code task} in {@code continuations(1)} over Netty, on {@code clock}, with no timeout. */
  private <T> Outcome<T> runOnce(MovingTicker clock, Class<? extends SessionTask<T>> task, Object... args)
      throws Exception {
    try (SuspendingNettyConnector connector = SuspendingNettyConnector.builder().ticker(clock).tcp();
         SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
             .address(server.address()).timeout(Timeout.NONE).instrument(CLIENT).build()) {
      return runner.run(task, 1, args).outcome(0);
    }
  }

  @ParameterizedTest(name = "session deadline {0}")
  @CsvSource({
      "false, read timed out after 3600 s waiting for a line",
      "true, read timed out: session deadline of 3600 s passed"})
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aReadTimesOutWhenTheClockReachesItsBoundBeforeItsTimerIsArmed(boolean deadline, String message)
      throws Exception {
    // With a session deadline its operation timeout is twice as long, so the deadline ends the read.
    MovingTicker clock = new MovingTicker();
    Outcome<String> o = runOnce(clock, ClockMovesAtReadTask.class, clock, deadline ? 2 * HOUR : HOUR,
        deadline ? HOUR : 0L);
    assertEquals(Outcome.Status.FAILED, o.status(), () -> "answered " + o.value());
    assertInstanceOf(TransportTimeoutException.class, o.failure());
    assertTrue(o.failure().getMessage().startsWith(message), () -> o.failure().toString());
  }

  /**
   * {@code SuspendingWaits.awaitInput} (public SPI) with the transport's own read waiter, which is
   * a {@code TimedRegistration} that awaitInput takes no reading for: its wait ends when the clock
   * reaches the wait's start plus its bound, not before. Timed from the reading the waiter holds
   * (here its first, 0; after a read, that read's), more than a bound behind the clock, it would
   * end at once, the clock unmoved (a read through it would fail "read timed out after <bound>"
   * early, which docs/errors.md rules out). The clock moves to the wait's end right after the
   * wait's own second reading (its start, then the timer's as it arms the wait).
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void awaitInputThroughTheReadWaiterEndsAtItsBoundNotBefore() throws Exception {
    MovingTicker clock = new MovingTicker();
    Outcome<String> o = runOnce(clock, AwaitInputTask.class, clock, HOUR);
    assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> String.valueOf(o.failure()));
    assertEquals("timed out after " + HOUR, o.value());
  }

  /**
   * The same wait after a real read through the same waiter: a read with no timeout (never armed,
   * so its reading is never spent by an arming), woken by its answer, must drop its reading as it
   * ends (the waiter's {@code timedOn()} answers null once the read is done), so that the next
   * wait through the waiter, an {@code awaitInput} that takes no reading for it, is timed from the
   * clock as it is armed. Kept, that reading (more than a bound behind the clock by then) would
   * time the wait, which would end as soon as the timer looks. The server holds the answer until
   * the read has taken its reading, so the read suspends every time; the task polls for more
   * (none) before it waits, as a user of awaitInput does, so that the wait is for input yet to come.
   * What this case checks is the waiter's {@code timedOn()} after the read; the awaitInput's own
   * answer is an end-to-end check only: with this clock, which moves by counted reads, a wait timed
   * from the kept reading answers the same "timed out after" the bound.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aReadThroughTheReadWaiterLeavesNoReadingForTheNextWait() throws Exception {
    MovingTicker clock = new MovingTicker();
    Runnable release = server::release;
    Outcome<String> o = runOnce(clock, AwaitInputAfterReadTask.class, clock, release, HOUR);
    assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> String.valueOf(o.failure()));
    assertEquals("session 0; timedOn null; timed out after " + HOUR, o.value());
  }
}
