package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.weft.load.internal.FreezingEchoServer;
import java.io.File;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinated-omission demonstration: a server that freezes every reply for 500 ms once.
 * At a fixed arrival rate the open model reports the iterations queued behind the stall with
 * their true waits, so its tail shows the freeze; a naive closed loop against the same server
 * sees the freeze once per user and its p99 stays below it. Figures are compared with the
 * server's own freeze length, not with a clock.
 */
@org.junit.jupiter.api.Timeout(value = 120, unit = TimeUnit.SECONDS)
class CoordinatedOmissionTest {
  private static final long FREEZE_MS = 500;
  private static final long FREEZE_NANOS = FREEZE_MS * 1_000_000L;
  @TempDir Path dir;

  @Test
  void openModelAtAFixedRateReportsTheRequestsQueuedBehindAFreezeWithTheirTrueWaits() throws Exception {
    try (FreezingEchoServer server = new FreezingEchoServer(250, FREEZE_MS)) {
      // 500/s for 2 s: the freeze comes at the 250th line, about 0.5 s in.
      Runs r = Runs.run(new File(dir.toFile(), "open"), "line", "-t", server.target(), "--mode", "continuations:1",
          "--rate", "500", "-d", "2s", "--max-sessions", "5", "-q");
      assertEquals(0, r.exit, r::toString);
      assertTrue(server.froze(), "the server never froze");
      JsonNode echo = r.summary().at("/operations/echo");
      assertEquals(1000, echo.at("/count").asLong(), r::toString);
      // The line that started the freeze waited all of it after its intended start.
      assertTrue(echo.at("/latencyNanos/max").asLong() >= FREEZE_NANOS, r::toString);
      // About 250 of the 1,000 arrivals (0.5 s at 500/s) queued behind the freeze, with waits
      // spread from the whole freeze down to nothing: the top 1% waited most of it.
      assertTrue(echo.at("/latencyNanos/p99").asLong() >= FREEZE_NANOS / 2, r::toString);
      // The service time alone hides the queueing: only the 5 iterations in flight when the
      // server froze (0.5%) saw it there.
      assertTrue(echo.at("/serviceNanos/p99").asLong() < FREEZE_NANOS / 2, r::toString);
    }
  }

  @Test
  void naiveClosedLoopSeesTheFreezeOncePerUserAndItsP99StaysBelowIt() throws Exception {
    try (FreezingEchoServer server = new FreezingEchoServer(1000, FREEZE_MS)) {
      Runs r = Runs.run(new File(dir.toFile(), "closed"), "line", "-t", server.target(), "--mode", "continuations:1",
          "-u", "4", "-n", "1000", "-q");
      assertEquals(0, r.exit, r::toString);
      assertTrue(server.froze(), "the server never froze");
      JsonNode echo = r.summary().at("/operations/echo");
      assertEquals(4000, echo.at("/count").asLong(), r::toString);
      // One exchange per user waited through the freeze: 4 of 4,000, under the top 1%.
      assertTrue(echo.at("/latencyNanos/max").asLong() >= FREEZE_NANOS, r::toString);
      assertTrue(echo.at("/latencyNanos/p99").asLong() < FREEZE_NANOS, r::toString);
      // HdrHistogram's correction puts back the exchanges the users did not send while stuck.
      assertTrue(echo.at("/correctedNanos/count").asLong() > 4000, r::toString);
      assertTrue(echo.at("/correctedNanos/p99").asLong() > echo.at("/latencyNanos/p99").asLong(), r::toString);
    }
  }
}
