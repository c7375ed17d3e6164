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

  /**
   * Shards whose windows differ, in configuration or in how many servers each had, are said shard
   * by shard (each with its own servers), never as the first shard's "in each of N shards"; the
   * figures are added from each shard's own, and "at first" is left out when the first sizes differ.
   */
  @Test
  void shardsWhoseWindowsDifferAreSaidShardByShard() throws Exception {
    String fixed = "64 sessions, held 1000 ms at most";
    File a = log("a", "#weft-load window sessions=128 least=32 max=256 addresses=3 size=64 largest=160 smallest=32"
        + " halvings=2 regrowths=1 waited=10 longestFullNanos=1500000000 freedUnheard=1 connectsFailed=3 config=" + CONFIG);
    File b = log("b", "#weft-load window sessions=64 least=64 max=64 addresses=1 size=64 largest=64 smallest=64"
        + " halvings=0 regrowths=0 waited=5 longestFullNanos=250000000 freedUnheard=0 connectsFailed=1 config=" + fixed);
    // Both merges' counts: 10 + 5 waited, 1.5 s full at most, 1 + 0 freed unheard, 3 + 1 failed.
    String counts = "; 15 connects waited for a place, full for " + Durations.format(1_500_000_000L) + " at most, 1"
        + " places freed without word from the server, 4 connects failed; ";
    assertEquals("differs by shard (shard 1: " + CONFIG + " for each of 3 servers; shard 2: " + fixed + ")" + counts
        + "160 at the largest, 32 at the smallest, 64 at the end, halved 2 times, grew back 1 time",
        LogMerge.merge(List.of(a, b)).info.get("connect window"));
    // The same configuration, 3 servers in one shard and 1 in the other.
    File c = log("c", "#weft-load window sessions=128 least=32 max=256 addresses=1 size=128 largest=128 smallest=64"
        + " halvings=1 regrowths=1 waited=5 longestFullNanos=250000000 freedUnheard=0 connectsFailed=1 config=" + CONFIG);
    assertEquals("differs by shard (shard 1: " + CONFIG + " for each of 3 servers; shard 2: " + CONFIG + ")" + counts
        + "128 at first, 160 at the largest, 32 at the smallest, 128 at the end, halved 3 times, grew back 2 times",
        LogMerge.merge(List.of(a, c)).info.get("connect window"));
  }

  private File log(String name, String windowLine) throws Exception {
    File f = dir.resolve(name + ".hlog").toFile();
    Files.write(f.toPath(), windowLine == null ? List.of(RUN) : List.of(windowLine, RUN), StandardCharsets.UTF_8);
    return f;
  }
}
