package io.weft.perf.internal;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/** Weighs the live heap (after full collections) and the process's resident memory. */
public final class HeapProbe {
  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

  private HeapProbe() {
  }

  /**
   * Heap bytes in use after collecting until the figure stops falling (at least 2, at most 6
   * collections): one {@link System#gc()} may leave garbage that a cleaner or reference queue
   * frees before the next.
   */
  public static long settledHeapUsed() throws InterruptedException {
    long previous = Long.MAX_VALUE;
    long used = 0;
    for (int round = 0; round < 6; round++) {
      System.gc();
      Thread.sleep(30);
      used = MEMORY.getHeapMemoryUsage().getUsed();
      if (round > 0 && used >= previous - 16 * 1024) {
        break;
      }
      previous = used;
    }
    return used;
  }

  /** Resident set size in bytes from /proc/self/status, or -1 where there is none. */
  public static long residentBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          String[] parts = line.substring(6).trim().split("\\s+");
          return Long.parseLong(parts[0]) * 1024L;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1L;
    }
    return -1L;
  }
}
