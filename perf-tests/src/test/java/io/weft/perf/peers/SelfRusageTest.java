package io.weft.perf.peers;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class SelfRusageTest {
  @Test
  void keepsTheContextSwitchesOfAThreadThatHasEnded() throws InterruptedException {
    boolean linux64 = System.getProperty("os.name", "").startsWith("Linux")
        && System.getProperty("os.arch", "").matches("amd64|x86_64|aarch64");
    if (Runtime.version().feature() < 22 || !linux64) {
      assertNotNull(SelfRusage.unavailableReason(), "no getrusage expected on " + Runtime.version());
      return;
    }
    long before = SelfRusage.contextSwitches();
    // Each timed park gives up the CPU: one voluntary switch at least.
    Thread parker = new Thread(() -> {
      for (int i = 0; i < 20; i++) {
        LockSupport.parkNanos(100_000L);
      }
    });
    parker.start();
    parker.join();

    long after = SelfRusage.contextSwitches();

    assertTrue(after - before >= 20, "switches before " + before + ", after the thread ended " + after);
  }
}
