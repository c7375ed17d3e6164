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
 * The JVM's abort cancellers ({@link AbortCancels}) are made with its first run, before any abort:
 * the active thread and its spare, two of them (review s14, mutant M2: the spare made at the first
 * abort instead). And they are the JVM's, not their maker's: in the system thread group, at normal
 * priority, holding nothing of the thread that made the first run (review s14 point 10: they took
 * its group and priority, and on JDK 17 its access control context, which kept the class loaders
 * of every frame on its stack reachable for the JVM's life). In a child JVM ({@link
 * FirstCancellersRun}), so that this run is the first there whatever ran before in this one.
 */
class FirstCancellersTest {
  /** A watchdog only: the child ends in a second or two. */
  private static final Duration WATCHDOG = Duration.ofSeconds(120);

  @TempDir
  Path dir;

  @Test
  void theFirstRunMakesTwoCancellersOfTheJvmsOwnAndTheirMakersLoaderCanBeCollected() throws Exception {
    ChildJvm.Result child = ChildJvm.run(dir, WATCHDOG, List.of("-Xmx64m", "-XX:+UseSerialGC"),
        FirstCancellersRun.class.getName());
    String all = child.toString();
    assertEquals(0, child.exit(), all);
    List<String> lines = child.out().lines().toList();
    assertTrue(lines.contains("cancellers: 2"), "the active canceller and its spare, made with the first run: " + all);
    List<String> cancellers = lines.stream().filter(l -> l.startsWith("canceller: ")).toList();
    assertEquals(2, cancellers.size(), all);
    for (String c : cancellers) {
      assertEquals("canceller: group system (the root), priority 5, daemon true, context loader null", c, all);
    }
    assertTrue(lines.contains("maker's loader collected: true"),
        "the loader of the code that made the first run is kept reachable: " + all);
  }
}
