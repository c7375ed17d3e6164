package io.weft.protocols.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A heap that stays nearly full after a collection counts as run out, though no thread ever met
 * an {@code OutOfMemoryError}: such a JVM can collect again and again for minutes before it
 * throws, if it ever does. In a child JVM with a 64 MiB heap and the threshold at 80% of it (so
 * that filling it to there cannot itself run out), {@link FullHeapRun} fills the heap step by
 * step with a full collection after each, while a run waits on a silent server: the first
 * collection that leaves the heap over the threshold aborts the run, every
 * session cancelled, with a reason that says so. Without the watch the run would wait for ever
 * (the watchdog fails the test).
 */
class HeapFullAfterCollectionTest {
  /** A watchdog only: the child normally ends in seconds. */
  private static final Duration WATCHDOG = Duration.ofSeconds(120);

  @TempDir
  Path dir;

  @Test
  void anOldGenerationStillOverTheThresholdAfterACollectionAbortsTheRunsAsTheErrorWould() throws Exception {
    ChildJvm.Result child = ChildJvm.run(dir, WATCHDOG,
        List.of("-Xmx64m", "-Dio.weft.transport.heapFullAfterCollectionPercent=" + FullHeapRun.PERCENT,
            // The collection watch alone: its steps, each with a full collection, are not thrashing.
            "-Dio.weft.transport.gcTimePercent=0"),
        FullHeapRun.class.getName());
    String all = child.toString();
    assertEquals(3, child.exit(), all);
    assertTrue(child.err().contains("the run was aborted: the heap ran out (")
        && child.err().contains("% full after a full collection ("), all);
    assertTrue(child.out().contains("aborted, " + FullHeapRun.SESSIONS + " outcomes, " + FullHeapRun.SESSIONS
        + " cancelled"), all);
    assertFalse(child.err().contains("java.lang.OutOfMemoryError"), all);
  }
}
