package io.weft.load.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code merge} says what the shards' connect windows did, from the {@code #weft-load window} line
 * each shard's interval log ends with: counts summed, the longest full time, sizes as over several
 * servers (the largest window's at the end, the largest and the smallest any took).
 */
class LogMergeWindowTest {
  private static final String CONFIG = "128 sessions growing to 256 (halving to 32 at the least), held 1000 ms at most";
  private static final String RUN = "#weft-load run model=closed mode=CONTINUATIONS(1) scenario=line seconds=1.0"
      + " users=2 expectedIntervalNanos=-1";

  @TempDir Path dir;

  @Test
  void mergedShardsKeepTheConnectWindowLine() throws Exception {
    File a = log("a", "#weft-load window sessions=128 least=32 max=256 addresses=1 size=64 largest=160 smallest=32"
        + " halvings=2 regrowths=1 waited=10 longestFullNanos=1500000000 freedUnheard=1 connectsFailed=3 config=" + CONFIG);
    File b = log("b", "#weft-load window sessions=128 least=32 max=256 addresses=1 size=128 largest=128 smallest=64"
        + " halvings=1 regrowths=1 waited=5 longestFullNanos=250000000 freedUnheard=0 connectsFailed=1 config=" + CONFIG);
    Results r = LogMerge.merge(List.of(a, b));
    assertEquals(CONFIG + " in each of 2 shards; 15 connects waited for a place, full for "
        + Durations.format(1_500_000_000L) + " at most, 1 places freed without word from the server, 4 connects failed;"
        + " 128 at first, 160 at the largest, 32 at the smallest, 128 at the end, halved 3 times, grew back 2 times",
        r.info.get("connect window"));
  }

  @Test
  void aShardWhoseLogSaysNothingOfAWindowIsNamedNotGuessed() throws Exception {
    File a = log("a", "#weft-load window sessions=128 least=32 max=256 addresses=1 size=64 largest=160 smallest=32"
        + " halvings=2 regrowths=1 waited=10 longestFullNanos=1500000000 freedUnheard=1 connectsFailed=3 config=" + CONFIG);
    File old = log("old", null);
    Results r = LogMerge.merge(List.of(old, a));
    assertEquals(CONFIG + "; 10 connects waited for a place, full for " + Durations.format(1_500_000_000L)
        + " at most, 1 places freed without word from the server, 3 connects failed; 128 at first, 160 at the"
        + " largest, 32 at the smallest, 64 at the end, halved 2 times, grew back 1 time (1 of 2 shards' logs say"
        + " nothing of a window)", r.info.get("connect window"));
    assertFalse(LogMerge.merge(List.of(old, old)).info.containsKey("connect window"), "no shard said a window");
  }

  private File log(String name, String windowLine) throws Exception {
    File f = dir.resolve(name + ".hlog").toFile();
    Files.write(f.toPath(), windowLine == null ? List.of(RUN) : List.of(windowLine, RUN), StandardCharsets.UTF_8);
    return f;
  }
}
