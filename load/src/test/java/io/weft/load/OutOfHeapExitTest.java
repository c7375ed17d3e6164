package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    // In 64 MiB, G1 may collect again and again without ever throwing: the heap still nearly
    // full after a full collection, or most of the time spent collecting with the heap nearly
    // full, counts as the heap running out, as the error does.
    assertTrue(child.err().contains("weft-load: ") && child.err().contains("the heap ran out (")
        && (child.err().contains("OutOfMemoryError: Java heap space") || child.err().contains("% full after a full collection")
            || child.err().contains(" ms collecting, with ")),
        child::toString);
  }
}
