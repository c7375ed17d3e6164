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
 * the outcomes or to make its exception still throws {@link RunAbortedException}, saying why and
 * that the outcomes were not gathered: the one made with the run. Before, {@code run()} threw the
 * {@code OutOfMemoryError} itself, often the JVM's preallocated one, with no frames and no word
 * of the abort (seen in RunOutOfHeapTest's THREADS child on JDK 25). In a child JVM with a small
 * heap that {@link NoRoomToSayRun}'s session leaves full.
 */
class NoRoomToSayTest {
  /** A watchdog only: the child normally ends in seconds. */
  private static final Duration WATCHDOG = Duration.ofSeconds(120);

  @TempDir
  Path dir;

  @Test
  void aRunWhoseThreadHasNoRoomForItsAbortStillThrowsRunAbortedException() throws Exception {
    ChildJvm.Result child = ChildJvm.run(dir, WATCHDOG, List.of("-Xmx32m", "-XX:+UseSerialGC"),
        NoRoomToSayRun.class.getName());
    String all = child.toString();
    assertEquals(0, child.exit(), all);
    String run = child.out().lines().filter(l -> l.startsWith("run: ")).findFirst().orElse("(no line run: )");
    assertTrue(run.startsWith("run: io.weft.continuations.RunAbortedException: the run was aborted: the heap ran out"
        + " (java.lang.OutOfMemoryError: Java heap space, met by a hoarding session on thread main); the sessions under"
        + " way were cancelled, and the run's own thread met the heap's end too, before it could gather their"
        + " outcomes [frames 0, result null]"), all);
  }
}
