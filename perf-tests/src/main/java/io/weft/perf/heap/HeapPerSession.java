package io.weft.perf.heap;

import io.weft.perf.internal.HeapProbe;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Heap bytes per waiting session: starts N sessions of each {@link ParkedSessions} kind, each
 * waiting a few frames down, and weighs the heap (after full collections, through the
 * {@code MemoryMXBean}) before and while they wait. Also prints resident memory per session,
 * which is where platform thread stacks show (they are not on the heap).
 *
 * <p>{@code java -cp perf-tests/target/benchmarks.jar io.weft.perf.heap.HeapPerSession
 * [--sessions 10000] [--platform-sessions 2000] [--depth 3] [--rounds 1] [--kind NAME]}. Prints figures; asserts
 * none. Each kind is weighed {@code rounds} times (default 1) and the median printed. The first
 * round is the honest one: on JDK 25 the JDK keeps ~1 MB of thread bookkeeping that grew for
 * 5,000 platform threads after they end, so a second round in the same JVM weighs next to
 * nothing. For the cleanest figures weigh one kind per JVM ({@code --kind THREADS}).
 */
public final class HeapPerSession {
  private HeapPerSession() {
  }

  /** Issue 5's target: at most this many heap bytes per suspended session. */
  static final double TARGET_BYTES = 2048;

  /** Every kind this build knows, in table order. */
  static List<ParkedSessions> kinds(long platformStackBytes) {
    List<ParkedSessions> kinds = new ArrayList<>();
    kinds.add(ThreadSessions.platform(platformStackBytes));
    kinds.add(ThreadSessions.virtual());
    kinds.addAll(RunnerSessions.all());
    return kinds;
  }

  /**
   * Issue 5's heap target for the continuation kinds weighed ({@code CONTINUATIONS}: net of
   * transport and server; {@code CONTINUATIONS_PIPE}: the whole waiting session), one line each:
   * MET or MISSED with the figure, or NOT MEASURED with the reason.
   */
  static List<String> targetLines(List<Weight> weights) {
    List<String> lines = new ArrayList<>();
    for (Weight w : weights) {
      String what;
      if (w.kind.equals("CONTINUATIONS")) {
        what = "suspended in CONTINUATIONS(1), net of transport and server";
      } else if (w.kind.equals("CONTINUATIONS_PIPE")) {
        what = "whole waiting session over the pipe: runner, continuation, MINA pipe session both"
            + " ends, echo server's held reply";
      } else {
        continue;
      }
      String head = w.kind + " heap <= 2 KB per suspended session (" + what + "): ";
      if (Double.isNaN(w.heapBytesPerSession)) {
        lines.add(head + "NOT MEASURED, " + w.note);
      } else {
        lines.add(head + (w.heapBytesPerSession <= TARGET_BYTES ? "MET" : "MISSED")
            + String.format(Locale.ROOT, ", %,.0f B (%,d sessions%s)", w.heapBytesPerSession,
                w.sessions, w.kind.endsWith("_PIPE") ? "" : ", depth " + w.depth));
      }
    }
    return lines;
  }

  /** One kind's figures. */
  static final class Weight {
    final String kind;
    final int sessions;
    final int depth;
    final double heapBytesPerSession;
    final double residentBytesPerSession;
    final String note;

    Weight(String kind, int sessions, int depth, double heap, double resident, String note) {
      this.kind = kind;
      this.sessions = sessions;
      this.depth = depth;
      this.heapBytesPerSession = heap;
      this.residentBytesPerSession = resident;
      this.note = note;
    }
  }

  public static void main(String[] args) throws Exception {
    int sessions = 10_000;
    int platformSessions = 2_000;
    int depth = 3;
    int rounds = 1;
    String only = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (args[i].equals("--kind")) {
        only = args[i + 1];
        continue;
      }
      int value = Integer.parseInt(args[i + 1].replace("_", ""));
      switch (args[i]) {
        case "--sessions":
          sessions = value;
          break;
        case "--platform-sessions":
          platformSessions = value;
          break;
        case "--depth":
          depth = value;
          break;
        case "--rounds":
          rounds = value;
          break;
        default:
          throw new IllegalArgumentException("unknown option: " + args[i]);
      }
    }
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
      System.out.printf(Locale.ROOT, "%-22s %9d %6s %14s %14s  %s%n", w.kind, w.sessions,
          w.kind.endsWith("_PIPE") ? "-" : Integer.toString(w.depth),
          format(w.heapBytesPerSession), format(w.residentBytesPerSession), w.note);
    }
    if (weights.isEmpty()) {
      System.err.println("no kind named " + only + "; kinds: " + kindNames());
      System.exit(2);
    }
    for (String line : targetLines(weights)) {
      System.out.println("# target: " + line);
    }
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
