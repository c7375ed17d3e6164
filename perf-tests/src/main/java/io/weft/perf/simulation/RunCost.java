package io.weft.perf.simulation;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * What a simulation run cost apart from its wall time: the bytes the simulation's thread
 * allocated and its CPU time, the collections and their time, and the process's CPU time. Unlike the wall time
 * these hardly depend on what else the machine runs, so two builds can be compared on a loaded
 * machine; a simulation runs on the calling thread, so that thread's allocation is the run's.
 * A figure the JVM does not offer prints as -1.
 */
final class RunCost {
  private final long thread = Thread.currentThread().getId();
  private final long allocatedAtStart;
  private final long collectionsAtStart;
  private final long collectionMillisAtStart;
  private final long cpuNanosAtStart;
  private final long threadCpuNanosAtStart;
  private long allocated = -1L;
  private long threadCpuNanos = -1L;
  private long collections;
  private long collectionMillis;
  private long cpuNanos = -1L;

  private RunCost() {
    allocatedAtStart = allocatedBytes(thread);
    collectionsAtStart = collections();
    collectionMillisAtStart = collectionMillis();
    cpuNanosAtStart = processCpuNanos();
    threadCpuNanosAtStart = threadCpuNanos();
  }

  /** Starts counting, on the thread that will run the simulation. */
  static RunCost start() {
    return new RunCost();
  }

  /** Stops counting, on the same thread. */
  void stop() {
    long a = allocatedBytes(thread);
    allocated = a < 0L || allocatedAtStart < 0L ? -1L : a - allocatedAtStart;
    collections = collections() - collectionsAtStart;
    collectionMillis = collectionMillis() - collectionMillisAtStart;
    long t = threadCpuNanos();
    threadCpuNanos = t < 0L || threadCpuNanosAtStart < 0L ? -1L : t - threadCpuNanosAtStart;
    long cpu = processCpuNanos();
    cpuNanos = cpu < 0L || cpuNanosAtStart < 0L ? -1L : cpu - cpuNanosAtStart;
  }

  /**
   * One line: {@code cost: allocated ... (... per session), simulation thread CPU ...;
   * collections ..., process CPU ...}.
   */
  String describe(int sessions) {
    return String.format(Locale.ROOT, "cost: allocated %d MiB on the simulation's thread (%d bytes per session),"
            + " its CPU %.2f s; %d collections, %d ms in them; process CPU %.2f s",
        allocated < 0L ? -1L : allocated >> 20, allocated < 0L ? -1L : allocated / Math.max(1, sessions),
        threadCpuNanos < 0L ? -1.0 : threadCpuNanos / 1e9, collections, collectionMillis,
        cpuNanos < 0L ? -1.0 : cpuNanos / 1e9);
  }

  private static long allocatedBytes(long thread) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    if (threads instanceof com.sun.management.ThreadMXBean) {
      com.sun.management.ThreadMXBean t = (com.sun.management.ThreadMXBean) threads;
      if (t.isThreadAllocatedMemorySupported() && t.isThreadAllocatedMemoryEnabled()) {
        return t.getThreadAllocatedBytes(thread);
      }
    }
    return -1L;
  }

  private static long threadCpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    return threads.isCurrentThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled()
        ? threads.getCurrentThreadCpuTime() : -1L;
  }

  private static long collections() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0L, gc.getCollectionCount());
    }
    return n;
  }

  private static long collectionMillis() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0L, gc.getCollectionTime());
    }
    return n;
  }

  private static long processCpuNanos() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean) {
      return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
    }
    return -1L;
  }
}
