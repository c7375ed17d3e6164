package io.weft.perf;

import io.weft.perf.heap.HeapPerSession;
import io.weft.perf.scaling.ScalingResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The performance targets Weft is held to, in one place, and the check of a run's figures
 * against them. The README's Performance section lists the same targets; a figure is judged
 * here only, printed as {@code # target:} lines (MET, MISSED with the figures, or NOT MEASURED
 * with the reason) and never asserted.
 *
 * <p>The experiment Weft reproduces measured a continuation's wall time at 4.0x a synchronous
 * run's and an overhead of 150 µs per continuation: those two figures are printed beside
 * Weft's as the baseline they are, not judged.
 */
public final class Targets {
  /** The seed experiment: each continuation row's wall time over SYNC's, at most this. */
  public static final double SEED_RATIO = 1.2;
  /** The original experiment's continuation wall time over its synchronous run's. */
  public static final double BASELINE_RATIO = 4.0;
  /** The original experiment's overhead per continuation, in microseconds. */
  public static final double BASELINE_OVERHEAD_MICROS = 150.0;

  /** Scaling targets are judged at this many concurrent sessions. */
  public static final int SCALING_SESSIONS = 10_000;
  /** The scaling run judged. */
  public static final String SCALING_SUBJECT = "CONTINUATIONS_1";
  /** Scaling: the subject's wall time over the latency-bound ideal, at most this. */
  public static final double SCALING_TIMES_IDEAL = 1.3;
  /** Scaling: the subject's wall time over the hand-written callback client's, at most this. */
  public static final double SCALING_TIMES_CALLBACK = 1.2;

  /** Heap per waiting continuation session, at most this many bytes. */
  public static final double HEAP_BYTES_PER_SESSION = 2048;

  /** Microbenchmarks: the stack depth judged. */
  public static final int MICRO_DEPTH = 3;
  /** Microbenchmarks: one suspend + resume at {@link #MICRO_DEPTH}, at most this many ns. */
  public static final double MICRO_LIMIT_NS = 300.0;
  /** Microbenchmarks: suspend + resume over a virtual thread's park + unpark, at most this. */
  public static final double MICRO_RATIO = 1.0;
  /** The benchmark judged. */
  public static final String MICRO_SUBJECT = "ContinuationSuspendBenchmark";
  /** The benchmark it is compared with. */
  public static final String MICRO_YARDSTICK = "VirtualThreadParkBenchmark";

  /**
   * Peers: {@code continuations(1)} over MINA, its round trips/s over the Netty callback client's,
   * at least.
   */
  public static final double PEERS_MIN_RT_VS_NETTY = 0.9;
  /**
   * Peers: {@code continuations(1)} over Weft's Netty transport, its round trips/s over the Netty
   * callback client's, at least: the same library underneath, so only Weft's own cost between.
   */
  public static final double PEERS_MIN_RT_VS_NETTY_OVER_NETTY = 0.95;
  /** Peers: {@code continuations(1)}'s client CPU per round trip over Netty's, at most. */
  public static final double PEERS_MAX_CPU_VS_NETTY = 1.2;
  /** Peers: {@code continuations(1)}'s round trips/s over plain virtual threads on a socket, at least. */
  public static final double PEERS_MIN_RT_VS_PLAIN_VT = 1.3;
  /** Peers: {@code continuations(1)}'s context switches per round trip, at most (Netty's: about 0.003). */
  public static final double PEERS_MAX_SWITCHES_PER_RT = 0.02;
  /** Peers: {@code continuations(1)}'s p99 over Netty's at {@link #PEERS_P99_SESSIONS}, at most. */
  public static final double PEERS_MAX_P99_VS_NETTY = 1.0;
  /** Peers: the session count at which p99 is judged. */
  public static final int PEERS_P99_SESSIONS = 10_000;

  /** The pipe's heap figure is a whole session's, not just the suspended continuation's. */
  static final String WHOLE_SESSION_ON_PIPE = " (whole session: runner, continuation, MINA pipe"
      + " session both ends, in-process echo server; HeapPerSession --kind CONTINUATIONS weighs"
      + " the suspended session alone)";
  /** Over TCP the figure is the client side of a whole session (the server may be elsewhere). */
  static final String WHOLE_CLIENT_SESSION_OVER_TCP = " (client side of a whole session: runner,"
      + " continuation, MINA socket session; HeapPerSession --kind CONTINUATIONS weighs the"
      + " suspended session alone)";

  private Targets() {
  }

  /** One JMH result: simple benchmark class name, parameters (-1 when absent), ns/op, error. */
  public record MicroFigure(String benchmark, int depth, long waitTimeoutMs, double score, double error) {
  }

  /**
   * The seed experiment, one line per continuation row: the ratio of its wall time to SYNC's,
   * NOT MEASURED when a row is missing or had failed sessions.
   */
  static List<String> seed(List<SeedExperiment.Result> results) {
    SeedExperiment.Result sync = null;
    for (SeedExperiment.Result r : results) {
      if (r.mode.equals("SYNC")) {
        sync = r;
      }
    }
    List<String> lines = new ArrayList<>();
    for (SeedExperiment.Result r : results) {
      if (!r.mode.startsWith("CONTINUATIONS")) {
        continue;
      }
      String head = r.mode + " / SYNC wall time <= " + SEED_RATIO + " (baseline " + BASELINE_RATIO
          + (r.mode.equals(SeedExperiment.SEQUENTIAL_CONTINUATIONS) ? "; like for like, one session at a time"
              : "; every session in flight") + "): ";
      if (sync == null) {
        lines.add(head + "NOT MEASURED, no SYNC row");
      } else if (sync.failed > 0 || r.failed > 0) {
        lines.add(head + "NOT MEASURED, failed sessions: SYNC " + sync.failed + ", " + r.mode + " " + r.failed);
      } else {
        double ratio = (double) r.wallNanos / sync.wallNanos;
        lines.add(verdict(head.substring(0, head.length() - 2), ratio <= SEED_RATIO, String.format(Locale.ROOT,
            "%.2f (%.1f ms / %.1f ms)", ratio, r.wallNanos / 1e6, sync.wallNanos / 1e6)));
      }
    }
    if (lines.isEmpty()) {
      lines.add("CONTINUATIONS / SYNC wall time <= " + SEED_RATIO + ": NOT MEASURED, no CONTINUATIONS row");
    }
    return lines;
  }

  /** Scaling at {@link #SCALING_SESSIONS}, per transport: one line per target. */
  public static List<String> scaling(List<ScalingResult> results) {
    List<String> lines = new ArrayList<>();
    String subjectName = SCALING_SUBJECT;
    for (String transport : transports(results)) {
      ScalingResult subject = find(results, transport, subjectName);
      ScalingResult virtual = find(results, transport, "VIRTUAL_THREADS");
      ScalingResult callback = find(results, transport, "CALLBACK");
      String prefix = transport + ", " + String.format(Locale.ROOT, "%,d", SCALING_SESSIONS) + " sessions: ";
      if (subject == null) {
        String why = results.stream()
            .filter(r -> r.transport.equals(transport) && r.mode.equals(subjectName)
                && r.sessions == SCALING_SESSIONS)
            .map(r -> r.note).findFirst()
            .orElse("no " + subjectName + " run at " + SCALING_SESSIONS + " sessions");
        lines.add(prefix + "targets NOT MEASURED: " + why);
        continue;
      }
      lines.add(prefix + verdict(subjectName + " wall <= " + SCALING_TIMES_IDEAL + "x ideal",
          subject.timesIdeal() <= SCALING_TIMES_IDEAL,
          String.format(Locale.ROOT, "%.2fx (%.1f ms, ideal %.0f ms)", subject.timesIdeal(),
              subject.wallMs, subject.idealMs)));
      lines.add(prefix + (virtual == null ? "events/s >= VIRTUAL_THREADS NOT MEASURED"
          : verdict(subjectName + " events/s >= VIRTUAL_THREADS",
              subject.eventsPerSecond >= virtual.eventsPerSecond,
              String.format(Locale.ROOT, "%,.0f vs %,.0f", subject.eventsPerSecond,
                  virtual.eventsPerSecond))));
      lines.add(prefix + (callback == null ? "within " + SCALING_TIMES_CALLBACK + "x of CALLBACK NOT MEASURED"
          : verdict(subjectName + " wall <= " + SCALING_TIMES_CALLBACK + "x CALLBACK",
              subject.wallMs <= SCALING_TIMES_CALLBACK * callback.wallMs,
              String.format(Locale.ROOT, "%.2fx (%.1f ms vs %.1f ms)",
                  subject.wallMs / callback.wallMs, subject.wallMs, callback.wallMs))));
      lines.add(prefix + (Double.isNaN(subject.heapBytesPerSession)
          ? "heap per session NOT MEASURED"
          : verdict(subjectName + " heap <= 2 KB per waiting session",
              subject.heapBytesPerSession <= HEAP_BYTES_PER_SESSION,
              String.format(Locale.ROOT, "%,.0f B", subject.heapBytesPerSession)
              + (transport.equals("pipe") ? WHOLE_SESSION_ON_PIPE
                  : transport.equals("tcp") ? WHOLE_CLIENT_SESSION_OVER_TCP : ""))));
    }
    return lines;
  }

  /**
   * Heap per waiting session for the continuation kinds weighed ({@code CONTINUATIONS}: net of
   * transport and server; {@code CONTINUATIONS_PIPE}: the whole waiting session), one line each.
   */
  public static List<String> heap(List<HeapPerSession.Weight> weights) {
    List<String> lines = new ArrayList<>();
    for (HeapPerSession.Weight w : weights) {
      String what;
      if (w.kind().equals("CONTINUATIONS")) {
        what = "suspended in CONTINUATIONS(1), net of transport and server";
      } else if (w.kind().equals("CONTINUATIONS_PIPE")) {
        what = "whole waiting session over the pipe: runner, continuation, MINA pipe session both"
            + " ends, echo server's held reply";
      } else {
        continue;
      }
      String head = w.kind() + " heap <= 2 KB per suspended session (" + what + ")";
      if (Double.isNaN(w.heapBytesPerSession())) {
        lines.add(head + ": NOT MEASURED, " + w.note());
      } else {
        lines.add(verdict(head, w.heapBytesPerSession() <= HEAP_BYTES_PER_SESSION,
            String.format(Locale.ROOT, "%,.0f B (%,d sessions%s)", w.heapBytesPerSession(),
                w.sessions(), w.kind().endsWith("_PIPE") ? "" : ", depth " + w.depth())));
      }
    }
    return lines;
  }

  /**
   * Microbenchmarks, for each timeout variant of the subject that ran at {@link #MICRO_DEPTH}:
   * the limit in ns and the ratio to the yardstick measured in the same run.
   *
   * @param noVirtualThreads why virtual threads were not measured (JDK before 21), or null
   */
  public static List<String> micro(List<MicroFigure> figures, String noVirtualThreads) {
    List<String> lines = new ArrayList<>();
    MicroFigure yardstick = null;
    for (MicroFigure r : figures) {
      if (r.benchmark().equals(MICRO_YARDSTICK) && r.depth() == MICRO_DEPTH) {
        yardstick = r;
      }
    }
    boolean any = false;
    for (MicroFigure r : figures) {
      if (!r.benchmark().equals(MICRO_SUBJECT) || r.depth() != MICRO_DEPTH) {
        continue;
      }
      any = true;
      String variant = r.waitTimeoutMs() <= 0L ? "no timeout" : r.waitTimeoutMs() + " ms timeout armed";
      String prefix = "suspend+resume at depth " + MICRO_DEPTH + " (" + variant + ")";
      lines.add(verdict(prefix + " <= " + ns(MICRO_LIMIT_NS) + " ns", r.score() <= MICRO_LIMIT_NS,
          ns(r.score()) + " ± " + ns(r.error()) + " ns"));
      if (yardstick == null) {
        lines.add(prefix + " <= " + MICRO_RATIO + "x virtual thread park/unpark: NOT MEASURED, "
            + (noVirtualThreads != null ? noVirtualThreads
                : MICRO_YARDSTICK + " depth=" + MICRO_DEPTH + " not in this run"));
      } else {
        double ratio = r.score() / yardstick.score();
        lines.add(verdict(prefix + " <= " + MICRO_RATIO + "x virtual thread park/unpark", ratio <= MICRO_RATIO,
            String.format(Locale.ROOT, "%.2fx (%s ns vs %s ns)", ratio, ns(r.score()), ns(yardstick.score()))));
      }
    }
    if (!any) {
      lines.add("suspend+resume at depth " + MICRO_DEPTH + ": NOT MEASURED, " + MICRO_SUBJECT + " depth="
          + MICRO_DEPTH + " not in this run");
    }
    return lines;
  }

  private static String verdict(String target, boolean met, String figures) {
    return target + ": " + (met ? "MET" : "MISSED") + ", " + figures;
  }

  private static String ns(double ns) {
    return String.format(Locale.ROOT, "%,.0f", ns);
  }

  private static List<String> transports(List<ScalingResult> results) {
    List<String> transports = new ArrayList<>();
    for (ScalingResult r : results) {
      if (r.sessions == SCALING_SESSIONS && !transports.contains(r.transport)) {
        transports.add(r.transport);
      }
    }
    return transports;
  }

  /** The clean run of {@code mode} at {@link #SCALING_SESSIONS} over {@code transport}, or null. */
  private static ScalingResult find(List<ScalingResult> results, String transport, String mode) {
    for (ScalingResult r : results) {
      if (r.transport.equals(transport) && r.mode.equals(mode) && r.sessions == SCALING_SESSIONS
          && r.ranCleanly()) {
        return r;
      }
    }
    return null;
  }
}
