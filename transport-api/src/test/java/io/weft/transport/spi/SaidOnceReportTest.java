package io.weft.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Once an exhaustion has been said, a later report of it makes no words: its watchers hear the
 * ones made ahead ("with no room to say more"), and the failure is not even described (its
 * {@code toString()} is not called). In a full heap every allocation of those words fails only
 * after full collections, and hundreds of sessions report the same error: session 16's slow
 * MINA children spent their close wait on the one worker making such words for a run long since
 * aborted. Before, every report built them (this test: the second failure described too). A new
 * watch that takes the reserve back starts a new exhaustion, said again in full.
 */
// The watches are held open by their try blocks, never read there.
@SuppressWarnings("try")
class SaidOnceReportTest {
  @Test
  void aReportAfterTheExhaustionWasSaidTellsTheWordsMadeAheadWithoutDescribingItsFailure() {
    List<String> told = new CopyOnWriteArrayList<>();
    Described first = new Described();
    Described second = new Described();
    Described third = new Described();
    try (HeapExhaustion.Watch a = HeapExhaustion.watch(told::add)) {
      assertTrue(HeapExhaustion.report(first, "a first report"));
      assertTrue(HeapExhaustion.report(second, "a second report"));
      assertTrue(HeapExhaustion.report(second, "a stamped report", HeapExhaustion.stamp()));
    }
    assertEquals(1, first.described.get(), "the first report describes its failure");
    assertEquals(0, second.described.get(), "a report after the exhaustion was said described its failure");
    assertEquals(3, told.size(), told.toString());
    assertTrue(told.get(0).contains("described failure, met by a first report"), told.get(0));
    assertEquals("the heap ran out (java.lang.OutOfMemoryError, with no room to say more)", told.get(1));
    assertEquals(told.get(1), told.get(2));
    // A new watch with room takes the reserve back: a new exhaustion, said in full.
    try (HeapExhaustion.Watch b = HeapExhaustion.watch(told::add)) {
      assertTrue(HeapExhaustion.report(third, "a report of a new exhaustion"));
    }
    assertEquals(1, third.described.get());
    assertTrue(told.get(3).contains("described failure, met by a report of a new exhaustion"), told.get(3));
  }

  /**
   * Review-heap6-s17 RISK 5: a report that reached only older watches (here a stamped one; a late
   * collection notice likewise) said the exhaustion, but not to a run watching since: that run's
   * own report of it is said to it in full. Before, the run heard only the words made ahead (and
   * nothing was logged for it), though there was room for its own.
   */
  @Test
  void aRunThatHasNotHeardTheExhaustionHearsItInFullThoughAnOlderRunWasToldIt() {
    List<String> older = new CopyOnWriteArrayList<>();
    List<String> newer = new CopyOnWriteArrayList<>();
    Described late = new Described();
    Described own = new Described();
    try (HeapExhaustion.Watch a = HeapExhaustion.watch(older::add)) {
      long stampedBeforeTheSecondWatch = HeapExhaustion.stamp();
      try (HeapExhaustion.Watch b = HeapExhaustion.watch(newer::add)) {
        assertTrue(HeapExhaustion.report(late, "a late report", stampedBeforeTheSecondWatch));
        assertEquals(List.of(), newer, "a report stamped before the second watch reached it");
        assertTrue(HeapExhaustion.report(own, "the newer run's own report"));
      }
    }
    assertEquals(2, older.size(), older.toString());
    assertTrue(older.get(0).contains("described failure, met by a late report"), older.get(0));
    assertEquals(1, newer.size(), newer.toString());
    assertTrue(newer.get(0).contains("described failure, met by the newer run's own report"), newer.get(0));
  }

  /**
   * Review-heap6-s17 RISK 5, the race: a report made while an earlier one is still telling its
   * watchers (here held in the first watcher's hearing) makes words of its own for a watcher the
   * earlier one has not reached yet, so that the first reason that watcher hears is said in full.
   * Before, the earlier report had already marked the exhaustion said, and the later one's words
   * made ahead ("with no room to say more") reached the second watcher first (a run keeps the
   * first reason it hears).
   */
  @Test
  void aReportRacingTheFirstOneSaysItsOwnWordsToAWatcherTheFirstHasNotReachedYet() throws Exception {
    java.util.concurrent.CountDownLatch firstHearing = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch goOn = new java.util.concurrent.CountDownLatch(1);
    List<String> first = new CopyOnWriteArrayList<>();
    List<String> second = new CopyOnWriteArrayList<>();
    Thread firstReporter = new Thread(() -> HeapExhaustion.report(new Described(), "the first report"),
        "first-reporter");
    try (HeapExhaustion.Watch a = HeapExhaustion.watch(reason -> {
          first.add(reason);
          if (Thread.currentThread() == firstReporter) {
            // Holds the first report here, before it reaches the second watcher.
            firstHearing.countDown();
            try {
              goOn.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        });
        HeapExhaustion.Watch b = HeapExhaustion.watch(second::add)) {
      firstReporter.start();
      try {
        firstHearing.await();
        assertTrue(HeapExhaustion.report(new Described(), "a racing report"));
        assertTrue(second.get(0).contains("described failure, met by a racing report"), second.toString());
      } finally {
        goOn.countDown();
        firstReporter.join();
      }
    }
    assertTrue(first.get(0).contains("described failure, met by the first report"), first.toString());
    assertEquals(2, second.size(), second.toString());
  }

  /** The heap's error, counting how often its words are asked for. */
  private static final class Described extends OutOfMemoryError {
    private static final long serialVersionUID = 1L;
    final transient AtomicInteger described = new AtomicInteger();

    Described() {
      super("Java heap space");
    }

    @Override
    public String toString() {
      described.incrementAndGet();
      return "described failure";
    }
  }
}
