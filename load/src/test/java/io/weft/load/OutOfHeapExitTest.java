package io.weft.load;

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
 * weft-load exits 3 with the reason when the heap runs out, instead of hanging: the run that hung
 * a JVM before (the {@code line} scenario in-VM with a million users in 2 GiB), scaled to a
 * 64 MiB heap that two million users' sessions cannot fit, so that the heap runs out within
 * seconds, whichever step meets it first (the run's own thread making the sessions, a session,
 * or a collection that leaves the old generation nearly full). With 200,000 users the in-VM run
 * was still busy connecting and running at the watchdog, on a loaded machine: not a test of
 * anything. The report directory is the test's own.
 */
class OutOfHeapExitTest {
  /** A watchdog only: the child ends in seconds. */
  private static final Duration WATCHDOG = Duration.ofSeconds(120);

  @TempDir
  Path dir;

  @Test
  void aRunThatExhaustsTheHeapExitsThreeWithTheReason() throws Exception {
    ChildJvm.Result child = ChildJvm.run(dir, WATCHDOG, List.of("-Xmx64m"), WeftLoad.class.getName(),
        "line", "--in-vm", "--mode", "continuations:1", "-u", "2000000", "-d", "10s", "-q",
        "-o", dir.resolve("report").toString());
    assertEquals(3, child.exit(), child::toString);
    assertTrue(heapEndReported(child.err()), child::toString);
  }

  /**
   * Whether weft-load's standard error says its run ended because the heap ran out, in any of the
   * documented words (docs/errors.md), as RunOutOfHeapTest accepts them: the error itself ("Java
   * heap space"); in 64 MiB, G1 collecting again and again without ever throwing, told by the
   * collection watch ("% full after a full collection") or the collection-time watch (" ms
   * collecting, with "); or, when the teller found no room to make its words, the ones made ahead
   * (HeapExhaustion's "with no room to say more", CollectionUsageWatch's "still nearly full after a
   * full collection", CollectionTimeWatch's "the JVM spent most of its time collecting").
   */
  static boolean heapEndReported(String err) {
    return err.contains("weft-load: ") && err.contains("the heap ran out (")
        && (err.contains("OutOfMemoryError: Java heap space") || err.contains("% full after a full collection")
            || err.contains(" ms collecting, with ")
            || err.contains("the heap ran out (java.lang.OutOfMemoryError, with no room to say more)")
            || err.contains("the heap ran out (still nearly full after a full collection)")
            || err.contains("the heap ran out (the JVM spent most of its time collecting"));
  }

  /** The check above accepts every documented reason, the made-ahead ones too, and nothing else. */
  @Test
  void everyDocumentedReasonCountsAsTheHeapsEnd() {
    String prefix = "weft-load: the run was aborted: ";
    for (String reason : List.of(
        "the heap ran out (java.lang.OutOfMemoryError: Java heap space, met by a session on thread weft-worker-0)",
        "the heap ran out (still 96% full after a full collection (G1 Old Generation): 61 MiB of 64 MiB; ...)",
        "the heap ran out (the JVM spent 93% of the last 1040 ms collecting, with 61 MiB of 64 MiB ...)",
        "the heap ran out (java.lang.OutOfMemoryError, with no room to say more)",
        "the heap ran out (still nearly full after a full collection)",
        "the heap ran out (the JVM spent most of its time collecting, the heap nearly full)")) {
      assertTrue(heapEndReported(prefix + reason + "; the sessions under way were cancelled\n"), reason);
    }
    assertFalse(heapEndReported(prefix + "the heap ran out (java.lang.OutOfMemoryError: Direct buffer memory)"));
    assertFalse(heapEndReported("the heap ran out (java.lang.OutOfMemoryError: Java heap space)"));
  }
}
