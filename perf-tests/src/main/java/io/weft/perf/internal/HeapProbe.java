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
   * Heap bytes in use after collecting until the figure stops falling (at most 5 rounds):
   * one {@link System#gc()} may leave garbage that a finalizer or reference queue frees next.
   */
  public static long settledHeapUsed() throws InterruptedException {
    long previous = Long.MAX_VALUE;
    long used = 0;
    for (int round = 0; round < 5; round++) {
      System.gc();
      Thread.sleep(20);
      used = MEMORY.getHeapMemoryUsage().getUsed();
      if (used >= previous - 64 * 1024) {
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
