package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.weft.load.internal.FreezingEchoServer;
import java.io.File;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code co-demo} setting on the real clock: {@code weft-load}'s command line against the
 * {@link FreezingEchoServer}, which holds every reply for 500 ms once. Real time only ever adds
 * to a latency, so only lower bounds and counts are asserted here; the exact figures, upper
 * sides included, are {@link CoordinatedOmissionTest}'s, in a clock the test moves itself.
 */
class FreezingServerCoordinatedOmissionTest {
  private static final long FREEZE_MS = 500;
  private static final long FREEZE_NANOS = FREEZE_MS * 1_000_000L;
  @TempDir Path dir;

  @Test
  void openModelAtAFixedRateRecordsTheArrivalsQueuedBehindTheFreezeWithTheirWaits() throws Exception {
    try (FreezingEchoServer server = new FreezingEchoServer(250, FREEZE_MS)) {
      // 500/s for 2 s: the freeze comes at the 250th line, about 0.5 s in.
      Runs r = Runs.run(new File(dir.toFile(), "open"), "line", "-t", server.target(), "--mode", "continuations:1",
          "--rate", "500", "-d", "2s", "--max-sessions", "5", "-q");
      assertEquals(0, r.exit, r::toString);
      assertTrue(server.froze(), "the server never froze");
      JsonNode echo = r.summary().at("/operations/echo");
      assertEquals(1000, echo.at("/count").asLong(), r::toString);
      assertEquals(1000, echo.at("/serviceNanos/count").asLong(), r::toString);
      // The line that started the freeze waited all of it, in service time as well.
      assertTrue(echo.at("/serviceNanos/max").asLong() >= FREEZE_NANOS, r::toString);
      assertTrue(echo.at("/latencyNanos/max").asLong() >= FREEZE_NANOS, r::toString);
      // Every arrival due after the freeze began is answered after it ends, and counts from its
      // intended start, which no delay of the driver moves: those due in the freeze's first half
      // (more than 100 of the 1,000) waited at least half of it, so the p99 did too.
      assertTrue(echo.at("/latencyNanos/p99").asLong() >= FREEZE_NANOS / 2, r::toString);
    }
  }

  @Test
  void closedLoopCorrectionAddsTheExchangesTheUsersDidNotSendDuringTheFreeze() throws Exception {
    try (FreezingEchoServer server = new FreezingEchoServer(1000, FREEZE_MS)) {
      Runs r = Runs.run(new File(dir.toFile(), "closed"), "line", "-t", server.target(), "--mode", "continuations:1",
          "-u", "4", "-n", "1000", "-q");
      assertEquals(0, r.exit, r::toString);
      assertTrue(server.froze(), "the server never froze");
      JsonNode echo = r.summary().at("/operations/echo");
      assertEquals(4000, echo.at("/count").asLong(), r::toString);
      assertTrue(echo.at("/latencyNanos/max").asLong() >= FREEZE_NANOS, r::toString);
      // The expected interval is 4 users x the run's length / 4,000 exchanges: under 250 ms for
      // any run shorter than 250 s (this test gives up at 120), so an exchange of 500 ms or more
      // spans at least two and the correction adds the exchanges the users did not send.
      assertTrue(echo.at("/correctedNanos/count").asLong() > 4000, r::toString);
      assertTrue(echo.at("/correctedNanos/max").asLong() >= FREEZE_NANOS, r::toString);
    }
  }
}
