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
 * A JVM that spends nearly all its time collecting a nearly full heap, and never throws, counts
 * as run out: in a child JVM with a 64 MiB heap and the collectors' notifications turned off,
 * {@link ThrashingHeapRun} keeps the heap nearly full of live data that it replaces piece by
 * piece while a run waits on a silent server. Nothing there meets an {@code OutOfMemoryError}
 * and no notification comes; only the time spent collecting, which {@code HeapExhaustion}'s own
 * thread reads, can tell, and it aborts the run, every session cancelled, with a reason that
 * says so. Without that watch the child collects until the watchdog kills it. G1, pinned: the
 * watch reads its old generation (ergonomics could pick Serial on a small machine).
 */
class ThrashingHeapTest {
  /** A watchdog only: the child normally ends in a few seconds. */
  private static final Duration WATCHDOG = Duration.ofSeconds(120);

  @TempDir
  Path dir;

  @Test
  void aJvmCollectingMostOfTheTimeWithTheHeapNearlyFullAbortsTheRunsAsTheErrorWould() throws Exception {
    ChildJvm.Result child = ChildJvm.run(dir, WATCHDOG,
        List.of("-Xmx64m", "-XX:+UseG1GC", "-Dio.weft.transport.heapFullAfterCollectionPercent=0"),
        ThrashingHeapRun.class.getName());
    String all = child.toString();
    assertEquals(3, child.exit(), all);
    assertTrue(child.err().contains("the run was aborted: the heap ran out (the JVM spent ")
        && child.err().contains(" ms collecting, with "), all);
    assertTrue(child.out().contains("aborted, " + ThrashingHeapRun.SESSIONS + " outcomes, "
        + ThrashingHeapRun.SESSIONS + " cancelled"), all);
    assertFalse(child.err().contains("java.lang.OutOfMemoryError"), all);
  }
}
