package io.weft.perf.scaling;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Issue 5's scaling targets, checked against a run's results and printed (never asserted): at
 * {@value #SESSIONS} sessions, CONTINUATIONS_1 within 1.3x the ideal, at least VIRTUAL_THREADS'
 * throughput, within 1.2x of the hand-written callback client's wall time, and at most 2 KB of
 * heap per waiting session. A target whose rows are missing says what is missing.
 */
final class TargetChecks {
  static final int SESSIONS = 10_000;
  static final String SUBJECT = "CONTINUATIONS_1";
  /** The pipe's heap figure is a whole session's, not just the suspended continuation's. */
  static final String WHOLE_SESSION_ON_PIPE = " (whole session: runner, continuation, MINA pipe"
      + " session both ends, in-process echo server; HeapPerSession --kind CONTINUATIONS weighs"
      + " the suspended session alone)";
  /** Over TCP the figure is the client side of a whole session (the server may be elsewhere). */
  static final String WHOLE_CLIENT_SESSION_OVER_TCP = " (client side of a whole session: runner,"
      + " continuation, MINA socket session; HeapPerSession --kind CONTINUATIONS weighs the"
      + " suspended session alone)";

  private TargetChecks() {
  }

  /** One line per target and transport: MET, MISSED (with the figures) or NOT MEASURED. */
  static List<String> check(List<ScalingResult> results) {
    List<String> lines = new ArrayList<>();
    for (String transport : transports(results)) {
      ScalingResult subject = find(results, transport, SUBJECT);
      ScalingResult virtual = find(results, transport, "VIRTUAL_THREADS");
      ScalingResult callback = find(results, transport, "CALLBACK");
      String prefix = transport + ", " + String.format(Locale.ROOT, "%,d", SESSIONS) + " sessions: ";
      if (subject == null) {
        String why = results.stream()
            .filter(r -> r.transport.equals(transport) && r.mode.equals(SUBJECT) && r.sessions == SESSIONS)
            .map(r -> r.note).findFirst().orElse("no " + SUBJECT + " run at " + SESSIONS + " sessions");
        lines.add(prefix + "targets NOT MEASURED: " + why);
        continue;
      }
      lines.add(prefix + verdict(SUBJECT + " wall <= 1.3x ideal", subject.timesIdeal() <= 1.3,
          String.format(Locale.ROOT, "%.2fx (%.1f ms, ideal %.0f ms)", subject.timesIdeal(),
              subject.wallMs, subject.idealMs)));
      lines.add(prefix + (virtual == null ? "events/s >= VIRTUAL_THREADS NOT MEASURED"
          : verdict(SUBJECT + " events/s >= VIRTUAL_THREADS",
              subject.eventsPerSecond >= virtual.eventsPerSecond,
              String.format(Locale.ROOT, "%,.0f vs %,.0f", subject.eventsPerSecond,
                  virtual.eventsPerSecond))));
      lines.add(prefix + (callback == null ? "within 1.2x of CALLBACK NOT MEASURED"
          : verdict(SUBJECT + " wall <= 1.2x CALLBACK", subject.wallMs <= 1.2 * callback.wallMs,
              String.format(Locale.ROOT, "%.2fx (%.1f ms vs %.1f ms)",
                  subject.wallMs / callback.wallMs, subject.wallMs, callback.wallMs))));
      lines.add(prefix + (Double.isNaN(subject.heapBytesPerSession)
          ? "heap per session NOT MEASURED"
          : verdict(SUBJECT + " heap <= 2 KB per waiting session",
              subject.heapBytesPerSession <= 2048,
              String.format(Locale.ROOT, "%,.0f B", subject.heapBytesPerSession)
              + (transport.equals("pipe") ? WHOLE_SESSION_ON_PIPE
                  : transport.equals("tcp") ? WHOLE_CLIENT_SESSION_OVER_TCP : ""))));
    }
    return lines;
  }

  private static String verdict(String target, boolean met, String figures) {
    return target + ": " + (met ? "MET" : "MISSED") + ", " + figures;
  }

  private static List<String> transports(List<ScalingResult> results) {
    List<String> transports = new ArrayList<>();
    for (ScalingResult r : results) {
      if (r.sessions == SESSIONS && !transports.contains(r.transport)) {
        transports.add(r.transport);
      }
    }
    return transports;
  }

  /** The clean run of {@code mode} at {@link #SESSIONS} over {@code transport}, or null. */
  private static ScalingResult find(List<ScalingResult> results, String transport, String mode) {
    for (ScalingResult r : results) {
      if (r.transport.equals(transport) && r.mode.equals(mode) && r.sessions == SESSIONS
          && r.ranCleanly()) {
        return r;
      }
    }
    return null;
  }
}
