package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.TimedAcquireTask;
import io.weft.continuations.testing.LinesOnlyTransport;
import io.weft.testsupport.MovingTicker;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.spi.Clocked;
import io.weft.transport.spi.Ticker;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A wait worked out from a reading of the run's clock is timed from that same reading, so it ends
 * at the deadline it was worked out for however the clock moves before the wait is armed. Timed
 * from a second reading, a move between the two would put its end past the clock's last move: on
 * a clock that moves only when a test or a simulation moves it, the session would wait forever.
 * The clock here ({@link MovingTicker}) makes that move at that exact point every time; the
 * JUnit timeout only bounds how long such a hang is let run before the test fails.
 */
class WaitsTimedFromTheirReadingTest {
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);

  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aSemaphoreWaitEndsAtItsDeadlineWhenTheClockReachesItBeforeTheWaitIsArmed() throws Exception {
    MovingTicker clock = new MovingTicker();
    SessionSemaphore none = new SessionSemaphore(0);
    try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1))
        .connector(new ClockedConnector(clock)).allowBlockingConnector(true)
        .address(InetSocketAddress.createUnresolved("nowhere", 1)).timeout(Timeout.NONE)
        .connectPacing(ConnectPacing.NONE).instrument(SessionRunnerTest.CLIENT).build()) {
      RunResult<String> result = runner.run(TimedAcquireTask.class, 1, none, clock, HOUR);

      assertTrue(result.allSucceeded(), () -> "failed: " + result.failures());
      assertEquals(List.of("timed out"), result.values());
    }
  }

  /** Hands out transports that carry nothing; its clock is the run's. */
  private static final class ClockedConnector implements Connector, Clocked {
    private final Ticker clock;

    ClockedConnector(Ticker clock) {
      this.clock = clock;
    }

    @Override
    public Transport connect(SocketAddress remote, Timeout timeout) {
      return new LinesOnlyTransport() {
        @Override public String readLine(int limit) { throw new UnsupportedOperationException(); }
        @Override public String readLineStrict(int limit) { throw new UnsupportedOperationException(); }
        @Override public void writeLine(String line) { throw new UnsupportedOperationException(); }
      };
    }

    @Override
    public Ticker ticker() {
      return clock;
    }

    @Override
    public void close() {
    }
  }
}
