package io.weft.protocols.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The first report of the heap's end needs no room: in a child JVM ({@link NoRoomReportRun})
 * whose 16 MiB heap is filled until not even an empty array fits, {@code HeapExhaustion.report}
 * of the error tells the runs watching. When {@code isHeapExhausted} compared the error's message
 * with string literals, their first use made them, the report threw {@code OutOfMemoryError}
 * itself and told no one (JDK 17 and 25, Serial and G1): a MINA processor that died so failed its
 * connector's sessions with {@code TransportClosedException}, and their run returned unaborted
 * (RunOutOfHeapTest's CONTINUATIONS_MINA case, once on JDK 25).
 *
 * <p>The {@code session} cases fill the heap in a session's task, which fails with the last
 * error: the session's failure path ({@code SessionFrame}) must report it. When that path first
 * asked whether the error was the engine's own unwinding signal with {@code instanceof Error}
 * resolved at its first use, the check threw {@code OutOfMemoryError} in the full heap, and the
 * session's thread died with neither the session's failure nor its report (the watch was told
 * only by the report of the close in its {@code finally}).
 */
class NoRoomReportTest {
  /** A watchdog only: the child ends in a second or two. */
  private static final Duration WATCHDOG = Duration.ofSeconds(120);

  @TempDir
  Path dir;

  /**
   * The cases with {@code limit} pass G1's GC overhead limit at every collection
   * ({@code -XX:GCTimeLimit=0 -XX:GCHeapFreeLimit=100}). G1 has that limit with JDK-8212084 (JDK
   * 26, backported to 25.0.3 and 21 updates): once passed, it fails the allocation whose
   * collection found it so, even when that collection freed the reserve, so the report's first
   * try at its words fails every time. When the report tried its words once, these cases told the
   * watch only "with no room to say more" (JDK 25, every run), and the plain G1 cases did so in
   * about one child in six under load. On OpenJDK 17.0.15, whose G1 has no such limit, they run
   * as the plain G1 cases.
   */
  @ParameterizedTest
  @CsvSource({"-XX:+UseSerialGC, probe, -", "-XX:+UseG1GC, probe, -", "-XX:+UseG1GC, probe, limit",
      "-XX:+UseSerialGC, session, -", "-XX:+UseG1GC, session, -", "-XX:+UseG1GC, session, limit"})
  void theFirstReportInAHeapWithNoRoomLeftTellsTheRuns(String collector, String how, String overheadLimit)
      throws Exception {
    List<String> options = new ArrayList<>(List.of("-Xmx16m", collector,
        // Only the report under test may tell the watch.
        "-Dio.weft.transport.heapFullAfterCollectionPercent=0", "-Dio.weft.transport.gcTimePercent=0"));
    if (overheadLimit.equals("limit")) {
      options.addAll(List.of("-XX:GCTimeLimit=0", "-XX:GCHeapFreeLimit=100"));
    }
    ChildJvm.Result child = ChildJvm.run(dir, WATCHDOG, options, NoRoomReportRun.class.getName(), how);
    String all = child.toString();
    assertEquals(0, child.exit(), all);
    if (how.equals("probe")) {
      assertTrue(child.out().contains("report: true, told: the heap ran out (java.lang.OutOfMemoryError: Java heap space"),
          all);
    } else {
      // The session's own report, first, and its thread not dead of its failure path. With the
      // check's entries resolved at their first use (JDK 17, Serial and G1, 6 of 6 direct
      // children) the thread died ("Exception in thread \"weft-session-0\"
      // java.lang.OutOfMemoryError") and only the close in its finally told the watch.
      assertTrue(child.out().contains("session ended, told: the heap ran out (java.lang.OutOfMemoryError: Java heap space,"
          + " met by a session on thread weft-session-0)"), all);
      assertFalse(all.contains("Exception in thread \"weft-session-0\""), all);
    }
  }
}
