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
