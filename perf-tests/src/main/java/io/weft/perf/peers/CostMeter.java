package io.weft.perf.peers;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * What the benchmark reads about this JVM around an in-process client's run, and about the
 * machine:
 * <ul>
 *   <li>CPU: the whole process's user + system time ({@code OperatingSystemMXBean
 *       .getProcessCpuTime}), every thread included (I/O, workers, GC, JIT);
 *   <li>context switches: voluntary + non-voluntary, and the voluntary ones alone (a thread
 *       that gave up its core: a sleep, a park; the rest are preemption, which the machine's
 *       other work causes), the whole process's from
 *       {@code getrusage(RUSAGE_SELF)} ({@link SelfRusage}, JDK 22+ on 64-bit Linux); elsewhere
 *       summed over the live threads' {@code /proc/self/task/&lt;tid&gt;/status}, where a thread
 *       that ends during the run takes its count with it (THREADS mode's session threads), so
 *       those rows count too few;
 *   <li>the JIT's share: on-CPU time of the JIT compiler threads ({@code C1 CompilerThread*},
 *       {@code C2 CompilerThread*}) from {@code /proc/self/task/<tid>/schedstat}, in nanoseconds, so
 *       that a run whose CPU is partly the compiler's (code not yet compiled: a warm-up too short)
 *       says so; unknown where unreadable or no compiler thread is found, or when a compiler
 *       thread ended during the run (the JVM starts and stops them as its queue asks);
 *   <li>peak heap after GC: the most heap in use right after any collection during the run
 *       (GC notifications), -1 when no collection ran;
 *   <li>peak threads: live platform threads ({@code ThreadMXBean}, peak reset before the run;
 *       virtual threads are not counted, their carriers are);
 *   <li>the machine's load average ({@code /proc/loadavg}).
 * </ul>
 * Not thread-safe: one measured run at a time. {@link #close()} removes the GC listeners.
 */
final class CostMeter implements AutoCloseable {
  private static final Path TASKS = Path.of("/proc/self/task");

  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final Set<String> heapPools = new HashSet<>();
  private final AtomicLong peakHeapAfterGc = new AtomicLong(-1L);
  private final NotificationListener gcListener = this::onGc;
  private volatile boolean armed;
  private String switchesUnreadable;

  CostMeter() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        heapPools.add(pool.getName());
      }
    }
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter) {
        ((NotificationEmitter) gc).addNotificationListener(gcListener, null, null);
      }
    }
  }

  /** A reading taken just before a run. */
  Reading start() {
    threads.resetPeakThreadCount();
    peakHeapAfterGc.set(-1L);
    switchesUnreadable = null;
    armed = true;
    long[] switches = readSwitches();
    return new Reading(os.getProcessCpuTime(), switches[0], switches[1], compilerThreadsCpu());
  }

  /** The figures of the run that began with {@code start}. */
  Figures end(Reading start) {
    long cpu = os.getProcessCpuTime() - start.cpuNanos;
    Map<Long, Long> jit = compilerThreadsCpu();
    long[] both = readSwitches();
    long switches = both[0];
    long voluntary = both[1];
    armed = false;
    return new Figures(cpu, start.contextSwitches < 0 || switches < 0 ? -1L : switches - start.contextSwitches,
        start.voluntarySwitches < 0 || voluntary < 0 ? -1L : voluntary - start.voluntarySwitches,
        peakHeapAfterGc.get(), threads.getPeakThreadCount(), switchesUnreadable,
        compilerCpuBetween(start.jit, jit));
  }

  /**
   * The JIT compiler threads' on-CPU time between two readings, in nanoseconds: a thread there at
   * both counts its difference, one started between them all of its time; -1 (unknown) when either
   * reading failed or found no compiler thread (an interpreter-only JVM, another JIT), or when a
   * thread of the first is gone from the second (HotSpot stops idle compiler threads as its queue
   * shrinks, and what such a thread did in the run is lost with it).
   */
  static long compilerCpuBetween(Map<Long, Long> start, Map<Long, Long> end) {
    if (start == null || end == null || end.isEmpty() || !end.keySet().containsAll(start.keySet())) {
      return -1L;
    }
    long sum = 0;
    for (Map.Entry<Long, Long> e : end.entrySet()) {
      sum += e.getValue() - start.getOrDefault(e.getKey(), 0L);
    }
    return sum;
  }

  /**
   * The on-CPU time, in nanoseconds, of each of this JVM's live JIT compiler threads, by thread id,
   * from their {@code schedstat} (its first field); null where there is none to read.
   */
  static Map<Long, Long> compilerThreadsCpu() {
    Map<Long, Long> cpu = new java.util.HashMap<>();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
      for (Path task : tasks) {
        try {
          List<String> comm = Files.readAllLines(task.resolve("comm"));
          if (comm.isEmpty() || !isCompilerThread(comm.get(0))) {
            continue;
          }
          cpu.put(Long.parseLong(task.getFileName().toString()),
              Long.parseLong(Files.readAllLines(task.resolve("schedstat")).get(0).trim().split("\\s+")[0]));
        } catch (NoSuchFileException e) {
          // The thread ended between the listing and the read.
        }
      }
    } catch (IOException | RuntimeException e) {
      return null;
    }
    return cpu;
  }

  /** A thread's name as the kernel keeps it (15 characters): HotSpot's C1 or C2 compiler threads. */
  static boolean isCompilerThread(String comm) {
    return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
  }

  /** Where the context switches come from, for the report. */
  static String contextSwitchSource() {
    return SelfRusage.unavailableReason() == null ? "getrusage(RUSAGE_SELF), every thread, ended ones included"
        : "/proc/self/task/*/status, live threads only (THREADS rows count too few); " + SelfRusage.unavailableReason();
  }

  /**
   * All context switches and the voluntary ones, in that order, from one reading (one
   * {@code getrusage}, or one walk of the threads reading each one's two counts together), so
   * that the voluntary ones are never more than all; -1 each when unreadable.
   */
  private long[] readSwitches() {
    try {
      long[] split = SelfRusage.unavailableReason() == null ? SelfRusage.switches() : liveThreadSwitches();
      return new long[] {split[0] + split[1], split[0]};
    } catch (IOException | IllegalStateException e) {
      switchesUnreadable = "context switches unreadable: " + e;
      return new long[] {-1L, -1L};
    }
  }

  private void onGc(Notification notification, Object handback) {
    if (!armed || !GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    long used = 0;
    for (Map.Entry<String, MemoryUsage> e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(e.getKey())) {
        used += e.getValue().getUsed();
      }
    }
    peakHeapAfterGc.accumulateAndGet(used, Math::max);
  }

  /** The live threads' voluntary and non-voluntary context switches, in that order, from one walk. */
  static long[] liveThreadSwitches() throws IOException {
    long voluntary = 0;
    long involuntary = 0;
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
      for (Path task : tasks) {
        try {
          long[] thread = statusSwitches(Files.readAllLines(task.resolve("status")));
          voluntary += thread[0];
          involuntary += thread[1];
        } catch (NoSuchFileException e) {
          // The thread ended between the listing and the read: its count is gone either way.
        }
      }
    }
    return new long[] {voluntary, involuntary};
  }

  /** A thread's voluntary and non-voluntary context switches, in that order, from its status lines. */
  static long[] statusSwitches(List<String> status) {
    long[] switches = new long[2];
    for (String line : status) {
      if (line.startsWith("voluntary_ctxt_switches:")) {
        switches[0] += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
        switches[1] += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return switches;
  }

  /**
   * TcpExt ListenOverflows from {@code /proc/net/netstat} (connects dropped by a full accept
   * queue, in this network namespace), or -1 where there is none.
   */
  static long listenOverflows() {
    try {
      String[] header = null;
      for (String line : Files.readAllLines(Path.of("/proc/net/netstat"))) {
        if (!line.startsWith("TcpExt:")) {
          continue;
        }
        String[] fields = line.trim().split("\\s+");
        if (header == null) {
          header = fields;
        } else {
          for (int i = 1; i < header.length && i < fields.length; i++) {
            if (header[i].equals("ListenOverflows")) {
              return Long.parseLong(fields[i]);
            }
          }
          return -1L;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1L;
    }
    return -1L;
  }

  /** The kernel's cap on a listen backlog ({@code net.core.somaxconn}), or 511 when unknown. */
  static int somaxconn() {
    try {
      // Line by line: /proc files report size 0, and a read sized by that can stop early.
      return Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/core/somaxconn")).get(0).trim());
    } catch (IOException | RuntimeException e) {
      return 511;
    }
  }

  /** The 1, 5 and 15 minute load averages, or "unknown". */
  static String loadAverage() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/loadavg")).get(0).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  @Override
  public void close() {
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter) {
        try {
          ((NotificationEmitter) gc).removeNotificationListener(gcListener);
        } catch (javax.management.ListenerNotFoundException e) {
          // Never added to this one.
        }
      }
    }
  }

  /** CPU and context switches at a run's start. */
  static final class Reading {
    final long cpuNanos;
    final long contextSwitches;
    final long voluntarySwitches;
    /** The compiler threads' CPU by thread id, or null when unreadable. */
    final Map<Long, Long> jit;

    Reading(long cpuNanos, long contextSwitches, long voluntarySwitches, Map<Long, Long> jit) {
      this.cpuNanos = cpuNanos;
      this.contextSwitches = contextSwitches;
      this.voluntarySwitches = voluntarySwitches;
      this.jit = jit;
    }
  }

  /**
   * A run's CPU, context switches and the voluntary ones among them (-1 unknown,
   * {@code switchesUnreadable} says why), peak heap after GC (-1 no GC), peak threads, and the JIT
   * compiler threads' CPU within it (-1 unknown).
   */
  static final class Figures {
    final long cpuNanos;
    final long contextSwitches;
    final long voluntarySwitches;
    final long peakHeapAfterGcBytes;
    final int peakThreads;
    final String switchesUnreadable;
    final long jitCpuNanos;

    Figures(long cpuNanos, long contextSwitches, long voluntarySwitches, long peakHeapAfterGcBytes, int peakThreads,
        String switchesUnreadable, long jitCpuNanos) {
      this.cpuNanos = cpuNanos;
      this.contextSwitches = contextSwitches;
      this.voluntarySwitches = voluntarySwitches;
      this.peakHeapAfterGcBytes = peakHeapAfterGcBytes;
      this.peakThreads = peakThreads;
      this.switchesUnreadable = switchesUnreadable;
      this.jitCpuNanos = jitCpuNanos;
    }

    /**
     * The JIT compiler threads' share of the run's CPU, 0 to 1, or -1 when unknown (their CPU, or
     * the run's: the process's CPU time moves in steps of 10 ms, so a short run can read 0).
     */
    double jitShare() {
      return jitCpuNanos < 0 || cpuNanos <= 0 ? -1.0 : Math.min(1.0, (double) jitCpuNanos / cpuNanos);
    }
  }
}
