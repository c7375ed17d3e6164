package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.weft.continuations.ConnectPacing;
import io.weft.continuations.ConnectWindow;
import io.weft.testsupport.RedisServerProcess;
import java.io.File;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 10,000 users against redis-server with its default listen backlog (511) connect without a
 * dropped SYN: every connect of the timeline took less than the 1 s of a SYN retransmit (none at
 * 1 s or 3 s), and the connects were spread as the default pacing says (10,000 turns at 500 a
 * second take 20 s), as the run's connect timeline shows second by second.
 */
class ConnectStormTest {
  private static final int USERS = 10_000;
  @TempDir Path dir;

  @Test
  void tenThousandUsersConnectPacedWithoutASynRetry() throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.start(
        Runs.binary(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE), List.of("--maxclients", "10100"))) {
      Runs r = Runs.run(new File(dir.toFile(), "storm"), "redis", "-t", "127.0.0.1:" + redis.port(),
          "--mode", "continuations:1", "-u", Integer.toString(USERS), "-n", "2", "-c", "PING", "-q");
      assertEquals(0, r.exit, r::toString);
      JsonNode s = r.summary();
      assertEquals(0, s.at("/errors").asLong(), r::toString);
      JsonNode connect = s.at("/operations/connect");
      assertEquals(USERS, connect.at("/count").asLong(), r::toString);
      assertEquals(2L * USERS, s.at("/operations/PING/count").asLong(), r::toString);
      long slowest = connect.at("/latencyNanos/max").asLong();
      assertTrue(slowest < 1_000_000_000L, "a connect took " + slowest + " ns: a dropped SYN's retransmit\n" + r);
      double paced = (USERS - ConnectPacing.DEFAULT_BURST) / (double) ConnectPacing.DEFAULT_PER_SECOND;
      assertTrue(s.at("/seconds").asDouble() >= paced * 0.99, "the connects were not paced: " + r);
      assertTrue(r.output.contains("connect pacing: " + ConnectPacing.DEFAULT), r::toString);
      // redis-server's backlog is 511: the redis command's window may grow to 256.
      assertTrue(s.at("/info/connect window").asText().startsWith(ConnectWindow.DEEP_BACKLOG.toString()), r::toString);
      // The connect timeline: every user's connect is in it, and by each second's end no more had
      // begun than the pacing allows from the run's start (a burst, then 500 a second; one burst
      // more for the timers' grain). A count the client controls: a slow machine only lowers it.
      long begun = 0;
      for (JsonNode interval : s.at("/timeline")) {
        begun += interval.at("/connects").asLong();
        double end = interval.at("/start").asDouble() + interval.at("/seconds").asDouble();
        double allowed = 2.0 * ConnectPacing.DEFAULT_BURST + ConnectPacing.DEFAULT_PER_SECOND * end;
        assertTrue(begun <= allowed, begun + " connects begun by " + end + " s, above the pacing's " + allowed + "\n" + r);
        assertTrue(interval.at("/windowWaiting").asLong(-1) >= 0, "no connect window in the timeline\n" + r);
        long size = interval.at("/window").asLong(-1);
        assertTrue(size >= ConnectWindow.DEFAULT_SESSIONS && size <= ConnectWindow.DEEP_BACKLOG_MAX_SESSIONS,
            "window " + size + " in the timeline\n" + r);
      }
      assertEquals(USERS, begun, r::toString);
    }
  }
}
