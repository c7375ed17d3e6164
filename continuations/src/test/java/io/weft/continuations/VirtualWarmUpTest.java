package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.testsupport.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A VIRTUAL_THREADS run loads {@code java.util.concurrent.RejectedExecutionException} before its
 * first session runs ({@code VirtualThreads.warmUp}): the class of the first catch clause of
 * {@code VirtualThread.submitRunContinuation}, which the JVM resolves only when an exception first
 * reaches that handler table. Left to then, in a full heap, its loading fails, and the new
 * {@code OutOfMemoryError} escapes the submit's retry and ends the carrier that made it (session
 * 18, JDK 25.0.3, {@code -Xlog:exceptions}: a VIRTUAL_THREADS child of {@code RunOutOfHeapTest}
 * lost both carriers so, docs/errors.md). What a resolution in a full heap does is shown only by
 * such children; this shows, in a fresh JVM whose class-load log is on, that the class is loaded
 * before the session runs (before, it was never loaded in such a run).
 */
class VirtualWarmUpTest {
  @TempDir
  Path dir;

  @Test
  void aVirtualThreadsRunLoadsTheCatchClauseClassOfTheCarriersSubmitBeforeItsFirstSession() throws Exception {
    assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+");
    // A watchdog only.
    ChildJvm.Result child = ChildJvm.run(dir, Duration.ofSeconds(120), List.of("-Xlog:class+load=info:stdout"),
        VirtualWarmUpRun.class.getName());
    String out = child.out();
    // The child's own lines and its standard error, without the class-load log.
    String all = "exit " + child.exit() + "\n" + String.join("\n", out.lines().filter(l -> !l.startsWith("[")).toList())
        + "\n" + child.err();
    assertEquals(0, child.exit(), all);
    int ran = out.indexOf("session 0 ran");
    assertTrue(ran >= 0, all);
    assertTrue(out.contains("outcome: SUCCEEDED"), all);
    int loaded = out.indexOf(" java.util.concurrent.RejectedExecutionException ");
    assertTrue(loaded >= 0 && loaded < ran, "RejectedExecutionException was not loaded before the session ran: " + all + "\n"
        + out.lines().filter(l -> l.contains("RejectedExecution")).toList());
  }
}
