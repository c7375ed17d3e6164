package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An aborted run whose own thread finds no room, for longer than the abort's grace, to gather
 * the outcomes or to make its exception still throws {@link RunAbortedException}, saying why,
 * with the outcomes if it had gathered them: the one made with the run, with no frames. Before,
 * {@code run()} threw the {@code OutOfMemoryError} itself, often the JVM's preallocated one, with
 * no frames and no word of the abort (seen in RunOutOfHeapTest's THREADS child on JDK 25). In a child JVM with a small
 * heap that {@link NoRoomToSayRun}'s session leaves full.
 */
class NoRoomToSayTest {
  /** A watchdog only: the child normally ends in seconds. */
  private static final Duration WATCHDOG = Duration.ofSeconds(120);

  @TempDir
  Path dir;

  @Test
  void aRunWhoseThreadHasNoRoomForItsAbortStillThrowsRunAbortedException() throws Exception {
    ChildJvm.Result child = ChildJvm.run(dir, WATCHDOG, List.of("-Xmx32m", "-XX:+UseSerialGC",
        // The error's report alone: neither the time the hoarder's heap spends collecting before
        // it throws (ThrashingHeapTest shows that watch) nor the heap still full after the full
        // collection that comes before the error (CollectionUsageWatchTest) may tell first. The
        // second told first now and then (a CI run, JDK 17: "still 99% full after a full
        // collection"), which depends on when the collector's notification is delivered.
        "-Dio.weft.transport.gcTimePercent=0", "-Dio.weft.transport.heapFullAfterCollectionPercent=0"),
        NoRoomToSayRun.class.getName());
    String all = child.toString();
    assertEquals(0, child.exit(), all);
    String run = child.out().lines().filter(l -> l.startsWith("run: ")).findFirst().orElse("(no line run: )");
    // Which session's report tells of the heap's end first, and whether the run's thread then
    // finds room to make its exception, depend on when the collector runs: on a loaded machine
    // the hoarder's own report can find no room (the session frame's report tells instead), and
    // the run's thread can find room after all (a new exception, with frames). Either way it is
    // a RunAbortedException naming the heap's end; never the bare OutOfMemoryError.
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("run: io\\.weft\\.continuations\\.RunAbortedException:"
        + " the run was aborted: the heap ran out \\(java\\.lang\\.OutOfMemoryError: Java heap space, met by a"
        + " (hoarding )?session on thread main\\); the sessions under way were cancelled(.*) \\[frames (\\d+), result (.*)\\]")
        .matcher(run);
    assertTrue(m.matches(), all);
    // Made then or made with the run (no frames), it says what happened: the outcomes if the
    // run's thread had gathered them, or that it had not.
    String notGathered = ", and the run's own thread met the heap's end too, before it could gather their outcomes";
    assertTrue(m.group(2).equals(notGathered) && m.group(4).equals("null")
        || m.group(2).isEmpty() && m.group(4).startsWith("SYNC: 1 sessions, 1 succeeded, 0 failed, 0 cancelled"), all);
  }
}
