package io.weft.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Review-vt23-s22 RISK-2: while one report makes the collectors' listener removal (under the
 * class's lock), another report of the heap's end goes on to its telling, never waiting for that
 * lock. One that waited there held its virtual thread on its carrier in a full heap: with both
 * carriers so held and the lock's owner unmounted, no report told the runs, and a VIRTUAL_THREADS
 * child of RunOutOfHeapTest hung past its watchdog (fixed in cde714d5). Here the test holds the
 * class's lock: the first report, which is to tell the only watch, takes the removal and blocks
 * on it; a second report must end, the watch told, while the lock is still held.
 */
// The watch is held open by its try block, never read there.
@SuppressWarnings("try")
class RemovalNotWaitedForTest {
  @Test
  void aSecondReportTellsTheWatchWhileTheFirstWaitsForTheRemovalsLock() throws Exception {
    List<String> told = new CopyOnWriteArrayList<>();
    long self = Thread.currentThread().getId();
    Thread first = new Thread(() -> HeapExhaustion.report(new OutOfMemoryError("Java heap space"),
        "the first report"), "first-reporter");
    Thread second = new Thread(() -> HeapExhaustion.report(new OutOfMemoryError("Java heap space"),
        "a second report"), "second-reporter");
    try (HeapExhaustion.Watch watch = HeapExhaustion.watch(told::add)) {
      synchronized (HeapExhaustion.class) {
        first.start();
        // Waits for a state, no bound: the first report must be held by this lock (its removal),
        // or the test shows nothing.
        while (!blockedOnALockOf(first, self)) {
          assertTrue(first.isAlive(),
              "the first report made no removal under the class's lock: this test no longer shows anything");
          first.join(1);
        }
        assertEquals(List.of(), told, "the first report told before its removal");
        second.start();
        while (second.isAlive()) {
          assertFalse(blockedOnALockOf(second, self),
              "a second report waits for the class's lock, held while another report makes the removal");
          second.join(1);
        }
        assertEquals(1, told.size(), told.toString());
        assertTrue(told.get(0).contains("met by a second report"), told.get(0));
      }
      first.join();
      second.join();
    }
    assertEquals(2, told.size(), "the first report, once the lock was let go, told the watch too: " + told);
  }

  /** Whether {@code thread} is blocked on a monitor that thread {@code owner} holds. */
  private static boolean blockedOnALockOf(Thread thread, long owner) {
    ThreadInfo info = ManagementFactory.getThreadMXBean().getThreadInfo(thread.getId());
    return info != null && info.getThreadState() == Thread.State.BLOCKED && info.getLockOwnerId() == owner;
  }
}
