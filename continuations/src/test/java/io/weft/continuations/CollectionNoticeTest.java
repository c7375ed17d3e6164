package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Once no watch needs the collectors' notifications (the last watch ended, or every watch has
 * heard the heap's end), the JVM builds none: {@code HeapExhaustion} takes its listener off, and
 * the JVM builds a collector's notifications only while it has one. In a heap full to the end
 * each build failed after collections of its own, each of which made another notification: the
 * notification thread was the busiest failing allocator of VIRTUAL_THREADS children whose
 * aborted runs' sessions were still unwinding. Measured as bytes that thread allocates, in a
 * child JVM ({@link CollectionNoticeRun}): for {@value CollectionNoticeRun#COLLECTIONS} full
 * collections, fewer than the bytes of {@value #AT_MOST} notifications (before, one notification
 * each: about 21 with the marker's own). Counts of bytes on one thread, so load does not move them.
 */
class CollectionNoticeTest {
  /** A watchdog only: the child normally ends in a second or two. */
  private static final Duration WATCHDOG = Duration.ofSeconds(120);
  /** The first marker's own build, plus room for one notification of a collection made earlier. */
  private static final int AT_MOST = 5;
  /** The collections' notifications, built again: 20 and the marker's, less room for their spread. */
  private static final int AT_LEAST_AGAIN = 15;

  @TempDir
  Path dir;

  @Test
  void noNotificationIsBuiltOnceTheLastWatchHasEnded() throws Exception {
    check("ended");
  }

  @Test
  void noNotificationIsBuiltOnceEveryWatchHasHeardTheHeapsEnd() throws Exception {
    check("heard");
  }

  /** After such a stop, a new watch listens again: the JVM builds every collection's notification. */
  @Test
  void aWatchBegunAfterAStopHearsTheCollectionsAgain() throws Exception {
    long[] figures = figures("again");
    assertTrue(figures[0] >= AT_LEAST_AGAIN * figures[1], "the notification thread allocated " + figures[0]
        + " bytes for " + CollectionNoticeRun.COLLECTIONS + " collections and a marker, " + figures[1]
        + " a notification: the new watch did not listen again");
  }

  private void check(String mode) throws Exception {
    long[] figures = figures(mode);
    long before = figures[0];
    long perNotice = figures[1];
    assertTrue(before < AT_MOST * perNotice, "the notification thread allocated " + before + " bytes for "
        + CollectionNoticeRun.COLLECTIONS + " collections and a marker, " + perNotice + " a notification: the JVM"
        + " built their notifications");
  }

  /** The child's bytes before the first marker and per notification. */
  private long[] figures(String mode) throws Exception {
    ChildJvm.Result child = ChildJvm.run(dir, WATCHDOG, List.of("-Xmx64m", "-XX:+UseSerialGC"),
        CollectionNoticeRun.class.getName(), mode);
    String all = child.toString();
    Matcher m = Pattern.compile("(?m)^before-marker (-?\\d+) per-notice (-?\\d+)$").matcher(child.out());
    assertTrue(child.exit() == 0 && m.find(), all);
    long before = Long.parseLong(m.group(1));
    long perNotice = Long.parseLong(m.group(2));
    System.out.println(mode + ": before-marker " + before + " per-notice " + perNotice);
    assertTrue(perNotice > 0, "a notification's build allocated nothing on that thread: " + all);
    return new long[] {before, perNotice};
  }
}
