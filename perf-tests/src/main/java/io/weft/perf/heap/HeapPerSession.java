package io.weft.perf.heap;

import io.weft.perf.Targets;
import io.weft.perf.internal.HeapProbe;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Heap bytes per waiting session: starts N sessions of each {@link ParkedSessions} kind, each
 * waiting a few frames down, and weighs the heap (after full collections, through the
 * {@code MemoryMXBean}) before and while they wait. Also prints resident memory per session,
 * which is where platform thread stacks show (they are not on the heap).
 *
 * <p>{@code java -cp perf-tests/target/benchmarks.jar io.weft.perf.heap.HeapPerSession
 * [--sessions 10000] [--platform-sessions 2000] [--depth 3] [--rounds 1] [--kind NAME]}
 * ({@code --help} says each). Prints figures; asserts none. Each kind is weighed {@code rounds} times (default 1) and the median printed. The first
 * round is the honest one: on JDK 25 the JDK keeps ~1 MB of thread bookkeeping that grew for
 * 5,000 platform threads after they end, so a second round in the same JVM weighs next to
 * nothing. For the cleanest figures weigh one kind per JVM ({@code --kind THREADS}).
 */
public final class HeapPerSession {
  private HeapPerSession() {
  }

  /** Every kind this build knows, in table order. */
  static List<ParkedSessions> kinds(long platformStackBytes) {
    List<ParkedSessions> kinds = new ArrayList<>();
    kinds.add(ThreadSessions.platform(platformStackBytes));
    kinds.add(ThreadSessions.virtual());
    kinds.addAll(RunnerSessions.all());
    return kinds;
  }

  /** One kind's figures; NaN where not measured, with the reason in {@code note}. */
  public record Weight(String kind, int sessions, int depth, double heapBytesPerSession,
      double residentBytesPerSession, String note) {
  }

  /** The command line. */
  @Command(name = "HeapPerSession", mixinStandardHelpOptions = true,
      description = "Heap bytes per waiting session, per kind of session.")
  static final class Options implements Callable<Integer> {
    @Option(names = "--sessions", defaultValue = "10000", description = "sessions per kind (default ${DEFAULT-VALUE})")
    int sessions;
    @Option(names = "--platform-sessions", defaultValue = "2000",
        description = "sessions for THREADS, whose stacks are real (default ${DEFAULT-VALUE})")
    int platformSessions;
    @Option(names = "--depth", defaultValue = "3", description = "frames below the task's run (default ${DEFAULT-VALUE})")
    int depth;
    @Option(names = "--rounds", defaultValue = "1", description = "weighings per kind, median printed (default ${DEFAULT-VALUE})")
    int rounds;
    @Option(names = "--kind", description = "weigh this kind only")
    String only;
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      if (sessions < 1 || platformSessions < 1 || depth < 1 || rounds < 1) {
        throw new ParameterException(spec.commandLine(), "--sessions, --platform-sessions, --depth and --rounds must be >= 1");
      }
      return run(sessions, platformSessions, depth, rounds, only);
    }
  }

  public static void main(String[] args) {
    int code = new CommandLine(new Options()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  private static int run(int sessions, int platformSessions, int depth, int rounds, String only) throws Exception {
    System.out.println("# Heap per waiting session: live heap after full GCs, while N sessions"
        + " wait " + depth + " frames down, minus before, over N; median of " + rounds + " round(s).");
    System.out.println("# resident = process RSS growth over N (platform thread stacks live"
        + " there, not on the heap); noisy, a hint only.");
    System.out.println("# JDK " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors()
        + " cores, max heap " + (Runtime.getRuntime().maxMemory() >> 20) + " MB");
    System.out.println("# kinds: THREADS, VIRTUAL_THREADS: bare threads parked; CONTINUATIONS,"
        + " RUNNER_VIRTUAL_THREADS: sessions of Weft's runner waiting in Suspend.await, no"
        + " transport; *_PIPE: the runner's sessions waiting for a held reply over MINA's pipe,"
        + " transport and echo server side included (depth does not apply).");
    System.out.printf(Locale.ROOT, "%-22s %9s %6s %14s %14s  %s%n", "kind", "sessions", "depth",
        "heap B/session", "RSS B/session", "note");
    List<Weight> weights = new ArrayList<>();
    for (ParkedSessions kind : kinds(0)) {
      if (only != null && !only.equalsIgnoreCase(kind.name())) {
        continue;
      }
      int n = kind.name().equals("THREADS") ? platformSessions : sessions;
      Weight w = weigh(kind, n, depth, rounds);
      weights.add(w);
      System.out.printf(Locale.ROOT, "%-22s %9d %6s %14s %14s  %s%n", w.kind(), w.sessions(),
          w.kind().endsWith("_PIPE") ? "-" : Integer.toString(w.depth()),
          format(w.heapBytesPerSession()), format(w.residentBytesPerSession()), w.note());
    }
    if (weights.isEmpty()) {
      System.err.println("no kind named " + only + "; kinds: " + kindNames());
      return 2;
    }
    for (String line : Targets.heap(weights)) {
      System.out.println("# target: " + line);
    }
    return 0;
  }

  /** Weighs {@code kind} with {@code sessions} sessions: the median of {@code rounds}. */
  static Weight weigh(ParkedSessions kind, int sessions, int depth, int rounds) throws Exception {
    if (rounds < 1) {
      throw new IllegalArgumentException("rounds < 1: " + rounds);
    }
    String unavailable = kind.unavailableReason();
    if (unavailable != null) {
      return new Weight(kind.name(), sessions, depth, Double.NaN, Double.NaN, unavailable);
    }
    double[] heap = new double[rounds];
    double[] resident = new double[rounds];
    for (int round = 0; round < rounds; round++) {
      long heapBefore = HeapProbe.settledHeapUsed();
      long residentBefore = HeapProbe.residentBytes();
      try (ParkedSessions.Parked parked = kind.park(sessions, depth)) {
        long heapDuring = HeapProbe.settledHeapUsed();
        long residentDuring = HeapProbe.residentBytes();
        heap[round] = (double) (heapDuring - heapBefore) / sessions;
        resident[round] = residentBefore < 0 ? Double.NaN
            : (double) (residentDuring - residentBefore) / sessions;
      }
    }
    return new Weight(kind.name(), sessions, depth, median(heap), median(resident), "");
  }

  private static List<String> kindNames() {
    List<String> names = new ArrayList<>();
    for (ParkedSessions kind : kinds(0)) {
      names.add(kind.name());
    }
    return names;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  private static String format(double value) {
    return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%,.0f", value);
  }
}
