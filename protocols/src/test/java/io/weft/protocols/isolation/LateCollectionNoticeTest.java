package io.weft.protocols.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full collection's notice that arrives late, after the heap it saw was freed and a new watch
 * (a new run) began, ends only the watches that were under way at that collection: in a child
 * JVM ({@link LateNoticeRun}, 64 MiB heap, threshold {@value LateNoticeRun#PERCENT}%), a listener
 * ahead of Weft's holds the notice of the collection that found the heap over the threshold
 * until the heap has been let go and a second watch has begun. The first watch hears it, the
 * second does not; the second hears the next collection that finds the heap full. Without the
 * collection's number compared with the watch's start, the second watch would hear the stale
 * notice (as a run after an aborted one did in CI on JDK 25).
 */
class LateCollectionNoticeTest {
  /** A watchdog only: the child normally ends in seconds. */
  private static final Duration WATCHDOG = Duration.ofSeconds(120);

  @TempDir
  Path dir;

  @Test
  void aLateNoticeOfACollectionBeforeAWatchBeganDoesNotEndIt() throws Exception {
    ChildJvm.Result child = ChildJvm.run(dir, WATCHDOG,
        List.of("-Xmx64m", "-Dio.weft.transport.heapFullAfterCollectionPercent=" + LateNoticeRun.PERCENT,
            // The collection watch alone: its steps, each with a full collection, are not thrashing.
            "-Dio.weft.transport.gcTimePercent=0"),
        LateNoticeRun.class.getName());
    String all = child.toString();
    assertEquals(0, child.exit(), all);
    assertTrue(child.out().contains("before the notice: first heard 1: the heap ran out (still ")
        && child.out().contains("% full after a full collection (") && child.out().contains("; second heard nothing"),
        all);
    assertTrue(child.out().contains("after a later full collection: second heard 1: the heap ran out (still "), all);
  }
}
