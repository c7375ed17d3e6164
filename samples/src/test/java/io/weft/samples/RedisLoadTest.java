package io.weft.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.samples.redis.RedisLoad;
import io.weft.testsupport.RedisServerProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class RedisLoadTest {
  private static final int SESSIONS = 300;

  @Test
  void runsEverySessionInEveryModeTheJdkHasAndPrintsEachResult() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    List<RunResult<Long>> results;
    try (RedisServerProcess redis = Redis.start();
         PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
      results = RedisLoad.run(redis.address(), SESSIONS, out);
    }
    String output = printed.toString(StandardCharsets.UTF_8);

    List<Mode> expected = new ArrayList<>(List.of(Mode.SYNC, Mode.THREADS, Mode.continuations(1)));
    if (Runtime.version().feature() >= 21) {
      expected.add(Mode.VIRTUAL_THREADS);
    } else {
      assertTrue(output.contains("VIRTUAL_THREADS: skipped: VIRTUAL_THREADS mode needs JDK 21"), output);
    }
    assertEquals(expected, results.stream().map(RunResult::mode).collect(Collectors.toList()));
    for (RunResult<Long> result : results) {
      assertTrue(result.allSucceeded(), result + "\n" + output);
      assertEquals(SESSIONS, result.sessions());
      // Each mode counts in its own key: every INCR answered once, 1 to SESSIONS in some order.
      assertEquals(LongStream.rangeClosed(1, SESSIONS).boxed().collect(Collectors.toList()),
          result.values().stream().sorted().collect(Collectors.toList()));
      assertTrue(output.contains(result.mode() + ": " + SESSIONS + " sessions, " + SESSIONS + " succeeded, 0 failed"),
          output);
    }
  }
}
