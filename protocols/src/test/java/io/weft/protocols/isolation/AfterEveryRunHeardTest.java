package io.weft.protocols.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Once every run watching has heard the heap's end, Weft's reports and watches allocate nothing,
 * however full the heap: in an exhausted heap each allocation fails only after full collections,
 * on whichever thread makes it, for as long as the aborted runs wait for their sessions. In child
 * JVMs ({@link AfterEveryRunHeardRun}, 16 MiB):
 * <ul>
 *   <li>the reports of the error that follow the first: the collectors' listener
 *       ({@code CollectionUsageWatch}) is taken off once every watch has heard, and that removal
 *       allocates (the JDK copies its list of listeners). When it came after the hearing, in a heap
 *       the hearing had filled, it found no room and every later report tried it again (in a
 *       VIRTUAL_THREADS child of RunOutOfHeapTest, 189 of 886 failed allocations); it is made right
 *       after the reserve's release, before the words and the hearing, and by one report only;
 *   <li>{@code weft-heap-watch}: it read the old generation (a MemoryUsage) at every window whose
 *       pauses were long enough, whether or not any run was left to tell.
 * </ul>
 */
class AfterEveryRunHeardTest {
  /** A watchdog only: the children end in a few seconds. */
  private static final Duration WATCHDOG = Duration.ofSeconds(120);

  @TempDir
  Path dir;

  // Not G1 with a full heap: there the JDK's own notification thread builds, late, the notifications
  // of collections made while the listener was still on, and each build fails in the full heap and
  // collects (3 of 21 runs of that case counted 3-27 collections, none from a report). The count is
  // of the whole JVM's collections, so that case cannot tell a report's from the JDK's; the serial
  // collector's full heap, which has no such late builds here, is the one that checks it.
  @ParameterizedTest
  @CsvSource({"-XX:+UseSerialGC, room", "-XX:+UseG1GC, room", "-XX:+UseSerialGC, full"})
  void theReportsAfterTheFirstAllocateNothing(String collector, String heap) throws Exception {
    // The collection watch's listener on (its default), the collection-time watch off: only the
    // reports under test may tell the watch.
    String line = child(List.of("-Xmx16m", collector, "-Dio.weft.transport.gcTimePercent=0"), "reports", heap);
    String prefix = "told: true, collections during " + AfterEveryRunHeardRun.REPORTS + " reports: ";
    assertTrue(line.startsWith(prefix), line);
    // None expected; 2 allowed for a stray allocation of another of the JVM's threads. Each report
    // that tries to allocate costs at least one.
    long collections = Long.parseLong(line.substring(prefix.length()));
    assertTrue(collections <= 2, "collections during the reports: " + collections);
  }

  @Test
  void theHeapWatchLooksAtNothingOnceEveryRunHasHeard() throws Exception {
    // A threshold of 1%: every window of a JVM that collects all the time would have it look.
    String line = child(List.of("-Xmx16m", "-XX:+UseSerialGC", "-Dio.weft.transport.gcTimePercent=1"), "heap-watch");
    String prefix = "told: true, heap watch allocated ";
    assertTrue(line.startsWith(prefix), line);
    long bytes = Long.parseLong(line.substring(prefix.length(), line.indexOf(' ', prefix.length())));
    assertEquals(0, bytes, line);
  }

  private String child(List<String> options, String... args) throws Exception {
    ChildJvm.Result child = ChildJvm.run(dir, WATCHDOG, options, AfterEveryRunHeardRun.class.getName(), args);
    assertEquals(0, child.exit(), child.toString());
    return child.out().lines().filter(l -> l.startsWith("told: ")).findFirst().orElse("(no line)\n" + child);
  }
}
