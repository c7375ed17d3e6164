package io.weft.perf.simulation;

import io.weft.perf.simulation.sessions.RoundTrips;
import io.weft.perf.simulation.sessions.WaitingClient;
import io.weft.perf.simulation.sessions.WaitingServer;
import io.weft.simulation.Latency;
import io.weft.simulation.Link;
import io.weft.simulation.Server;
import io.weft.simulation.Simulation;
import io.weft.simulation.SimulationResult;
import io.weft.simulation.servers.EchoServer;
import io.weft.transport.Timeout;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The simulation's two whole-run figures, each printed with how it was measured and judged
 * against its target ({@code # target:} MET or MISSED, never asserted):
 *
 * <ul>
 *   <li>{@code heap [sessions]}: the live heap of 1,000,000 simulated sessions, client and server
 *       side, each waiting on a read: measured after a full GC at virtual second 5, while every
 *       session waits; with the JVM's peak heap use over the whole run. Target: at most 2 GB.
 *   <li>{@code wall [sessions]}: the wall time of 100,000 sessions, each 20 round trips with an
 *       echo server over a 50 ms link (one way) with a 30 s timeout, and a 5 s partition in the
 *       middle of the run. Target: under 10 s on 2 cores.
 * </ul>
 *
 * <p>{@code wall} also prints what the run cost besides wall time ({@code cost:} bytes allocated
 * on the simulation's thread, collections, process CPU time), figures that a loaded machine
 * barely changes. Its wall figure is meant with the collector that docs/simulation.md recommends
 * for simulation runs, the throughput collector; the benchmark does not choose one itself: the
 * target line names the collector the JVM ran with, and a run with another says so.
 *
 * <pre>
 * java -Xmx3g -cp perf-tests.jar io.weft.perf.simulation.SimulationBenchmark heap
 * java -Xmx3g -XX:+UseParallelGC -cp perf-tests.jar io.weft.perf.simulation.SimulationBenchmark wall
 * </pre>
 */
public final class SimulationBenchmark {
  static final long HEAP_TARGET_BYTES = 2L << 30;
  static final double WALL_TARGET_SECONDS = 10.0;
  private static final InetSocketAddress SERVER = InetSocketAddress.createUnresolved("server", 7);

  private SimulationBenchmark() {}

  public static void main(String[] args) {
    String what = args.length > 0 ? args[0] : "wall";
    System.out.printf(Locale.ROOT, "# JDK %s, %d cores, max heap %d MiB, GC %s, load average %.2f%n", Runtime.version(),
        Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20, collectors(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    if (what.equals("heap")) {
      heap(args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000);
    } else if (what.equals("wall")) {
      wall(args.length > 1 ? Integer.parseInt(args[1]) : 100_000);
    } else {
      System.err.println("usage: SimulationBenchmark heap|wall [sessions]");
      System.exit(2);
    }
  }

  static void heap(int sessions) {
    long[] live = new long[1];
    Simulation sim = Simulation.builder()
        .seed(1)
        .instrument("io.weft.perf.simulation.sessions")
        .link(Link.of(Latency.uniform(1, 50, TimeUnit.MILLISECONDS)))
        .server(SERVER, Server.of(WaitingServer.class).withBacklog(Integer.MAX_VALUE))
        .timeout(Timeout.of(10, TimeUnit.SECONDS))
        .startWithin(1, TimeUnit.SECONDS)
        .observe(5, TimeUnit.SECONDS, () -> live[0] = liveHeapAfterGc())
        .build();
    resetPeaks();
    SimulationResult<String> result = sim.run(WaitingClient.class, sessions, SERVER);
    long peak = peakHeap();
    System.out.println(result.summary());
    long waited = result.outcomes().stream().filter(o -> "waited".equals(o.value())).count();
    System.out.printf(Locale.ROOT, "heap: %d sessions (%d client + %d server side) waiting on a read at virtual 5 s:"
            + " live heap after a full GC %d MiB (%.0f bytes per client+server pair); peak heap used over the run"
            + " %d MiB; %d clients waited to their timeout%n",
        sessions, sessions, sessions, live[0] >> 20, (double) live[0] / Math.max(1, sessions), peak >> 20, waited);
    System.out.printf(Locale.ROOT, "# load average at the end %.2f%n",
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    boolean met = waited == sessions && live[0] <= HEAP_TARGET_BYTES;
    System.out.printf(Locale.ROOT, "# target: simulation heap of %d waiting sessions <= 2048 MiB: %s (live %d MiB)%n",
        sessions, met ? "MET" : "MISSED", live[0] >> 20);
  }

  static void wall(int sessions) {
    Simulation sim = Simulation.builder()
        .seed(1)
        .instrument("io.weft.perf.simulation.sessions", "io.weft.simulation.servers")
        .link(Link.of(Latency.fixed(50, TimeUnit.MILLISECONDS)))
        .partition("client", "server", 1500, 5000, TimeUnit.MILLISECONDS)
        .server(SERVER, Server.of(EchoServer.class).withBacklog(Integer.MAX_VALUE))
        .timeout(Timeout.of(30, TimeUnit.SECONDS))
        .startWithin(1, TimeUnit.SECONDS)
        .build();
    RunCost cost = RunCost.start();
    SimulationResult<Integer> result = sim.run(RoundTrips.class, sessions, SERVER, 20);
    cost.stop();
    System.out.println(result.summary());
    double wall = result.wallNanos() / 1e9;
    System.out.printf(Locale.ROOT, "wall: %d sessions x 20 round trips, 50 ms latency, 30 s timeout, partition"
            + " from 1.5 s to 6.5 s: %.2f s wall for %.1f s virtual; %d succeeded%n",
        sessions, wall, result.virtualNanos() / 1e9, result.count(io.weft.continuations.Outcome.Status.SUCCEEDED));
    System.out.println(cost.describe(sessions));
    System.out.printf(Locale.ROOT, "# load average at the end %.2f%n",
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    boolean met = result.allSucceeded() && wall < WALL_TARGET_SECONDS;
    System.out.printf(Locale.ROOT, "# target: simulation of %d sessions x 20 round trips < %.0f s wall: %s (%.2f s, %s)%n",
        sessions, WALL_TARGET_SECONDS, met ? "MET" : "MISSED", wall, collectors());
    if (!collectors().startsWith("PS ")) {
      System.out.println("# collector: docs/simulation.md recommends -XX:+UseParallelGC for simulation runs (one"
          + " thread's batch job); this figure was taken with " + collectors());
    }
  }

  /** The collectors of this JVM, as it names them: which GC the figure was taken with. */
  private static String collectors() {
    StringBuilder names = new StringBuilder();
    for (java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      names.append(names.length() == 0 ? "" : " + ").append(gc.getName());
    }
    return names.toString();
  }

  private static long liveHeapAfterGc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    Runtime rt = Runtime.getRuntime();
    long live = rt.totalMemory() - rt.freeMemory();
    if (Boolean.getBoolean("weft.bench.histogram")) {
      printHistogram();
    }
    return live;
  }

  /** The live heap by class (the top 25 lines of {@code jcmd GC.class_histogram}): what a session costs. */
  private static void printHistogram() {
    try {
      Object out = ManagementFactory.getPlatformMBeanServer().invoke(
          new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
          new Object[] {new String[0]}, new String[] {String[].class.getName()});
      String[] lines = String.valueOf(out).split("\n");
      for (int i = 0; i < Math.min(lines.length, 28); i++) {
        System.out.println("# histogram " + lines[i]);
      }
    } catch (javax.management.JMException e) {
      System.out.println("# histogram unavailable: " + e);
    }
  }

  private static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  private static long peakHeap() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }
}
