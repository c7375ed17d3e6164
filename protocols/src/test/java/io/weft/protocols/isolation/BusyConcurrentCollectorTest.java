package io.weft.protocols.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.weft.testsupport.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A healthy run on a concurrent collector is not taken for a heap run out: on ZGC (generational
 * on JDK 21 and later, as JDK 25 has it by default) and Shenandoah, whose "Cycles" beans time the
 * concurrent work done beside the application, {@link BusyHeapRun} keeps the collector cycling back
 * to back with much of the heap live, and its run ends with every session succeeded.
 * {@code CollectionTimeWatch} counts only pauses, and only with the old generation nearly full
 * after a collection; when it summed every bean's time with the heap in use, this run was aborted
 * with "the heap ran out".
 */
class BusyConcurrentCollectorTest {
  /** A watchdog only: the child normally ends in seconds. */
  private static final Duration WATCHDOG = Duration.ofSeconds(180);

  @TempDir
  Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"-XX:+UseZGC", "-XX:+UseShenandoahGC"})
  void aRunOnAConcurrentCollectorBusyCollectingAHeapWithRoomEndsUnaborted(String collector) throws Exception {
    ChildJvm.Result child = ChildJvm.run(dir, WATCHDOG, List.of("-Xmx128m", collector), BusyHeapRun.class.getName());
    String all = child.toString();
    // Not every JDK build has Shenandoah (Temurin's, as CI's, do).
    assumeFalse(child.exit() != 0 && child.err().contains("Unrecognized VM option"), all);
    assertFalse(child.err().contains("the heap ran out"), all);
    assertEquals(0, child.exit(), all);
  }
}
