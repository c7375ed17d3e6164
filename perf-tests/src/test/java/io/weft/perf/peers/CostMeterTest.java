package io.weft.perf.peers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class CostMeterTest {
  @Test
  void aThreadThatParksCountsAmongTheVoluntarySwitches() throws InterruptedException {
    try (CostMeter meter = new CostMeter()) {
      CountDownLatch measured = new CountDownLatch(1);
      CountDownLatch parked = new CountDownLatch(1);
      // Kept alive until the run's figures are read: on JDK 17 and 21 the count is summed over
      // the live threads only.
      Thread parker = new Thread(() -> {
        for (int i = 0; i < 20; i++) {
          // Each timed park gives up the core: one voluntary switch at least.
          LockSupport.parkNanos(100_000L);
        }
        parked.countDown();
        try {
          measured.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      CostMeter.Reading start = meter.start();
      parker.start();
      parked.await();
      CostMeter.Figures figures = meter.end(start);
      measured.countDown();
      parker.join();

      assertTrue(figures.voluntarySwitches >= 20, "voluntary switches " + figures.voluntarySwitches
          + (figures.switchesUnreadable == null ? "" : ": " + figures.switchesUnreadable));
      assertTrue(figures.voluntarySwitches <= figures.contextSwitches,
          "voluntary " + figures.voluntarySwitches + " of " + figures.contextSwitches + " in all");
    }
  }

  @Test
  void aThreadsStatusGivesItsVoluntaryAndNonVoluntarySwitchesApart() {
    List<String> status = List.of("Name:\tweft-mina-1-1", "State:\tS (sleeping)", "Threads:\t31",
        "voluntary_ctxt_switches:\t487", "nonvoluntary_ctxt_switches:\t30304");
    assertArrayEquals(new long[] {487, 30304}, CostMeter.statusSwitches(status));
  }
}
