package io.weft.continuations.heap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run that runs out of heap ends: in a child JVM with a 64 MiB heap, {@link OutOfHeapRun}'s
 * sessions together hold some 150 MiB. The first session that finds no room reports the heap
 * exhausted; the run cancels every other session (blocked on reads that would never end) and
 * {@code run()} throws {@code RunAbortedException} with the reason, so the child exits 3. Without
 * that, the child would wait for ever and the watchdog would fail the test.
 */
class RunOutOfHeapTest {
  /** A watchdog only: the child normally ends in seconds. */
  private static final Duration WATCHDOG = Duration.ofSeconds(180);

  @TempDir
  Path dir;

  @Test
  void aRunThatExhaustsTheHeapIsAbortedWithTheReason() throws Exception {
    ChildJvm.Result child = ChildJvm.run(dir, WATCHDOG, List.of("-Xmx64m", "-Xss256k"),
        OutOfHeapRun.class.getName());
    assertEquals(3, child.exit(), child.toString());
    assertTrue(child.err().contains("the run was aborted: the heap ran out (java.lang.OutOfMemoryError: Java heap space"),
        child.toString());
    assertTrue(child.out().contains("run aborted: " + OutOfHeapRun.SESSIONS + " outcomes"), child.toString());
  }
}
