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
 * 1 s or 3 s). The redis command's default is the connect window alone (128 users unheard from
 * at first, at most 256), with no pacing on top of it, as the run's info and its connect timeline
 * show second by second.
 */
class ConnectStormTest {
  private static final int USERS = 10_000;
  @TempDir Path dir;

  @Test
  void tenThousandUsersConnectThroughTheWindowWithoutASynRetry() throws Exception {
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
      // The window bounds the listen queue: no pace on top of it (500 a second took 20 s).
      assertTrue(r.output.contains("connect pacing: " + ConnectPacing.NONE), r::toString);
      // redis-server's backlog is 511: the redis command's window starts at 128 and may grow to 256.
      assertTrue(s.at("/info/connect window").asText().startsWith(ConnectWindow.DEEP_BACKLOG.toString()), r::toString);
      // The connect timeline: every user's connect is in it, with the window's size each second,
      // which never passed its cap nor fell below its least (halved on a failed connect or a
      // place freed unheard).
      long begun = 0;
      for (JsonNode interval : s.at("/timeline")) {
        begun += interval.at("/connects").asLong();
        assertTrue(interval.at("/windowWaiting").asLong(-1) >= 0, "no connect window in the timeline\n" + r);
        long size = interval.at("/window").asLong(-1);
        assertTrue(size >= ConnectWindow.DEEP_BACKLOG.leastSessions()
            && size <= ConnectWindow.DEEP_BACKLOG_MAX_SESSIONS, "window " + size + " in the timeline\n" + r);
      }
      assertEquals(USERS, begun, r::toString);
    }
  }
}
