package io.weft.perf.peers;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.weft.perf.Targets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The peers benchmark's targets against one run's within-round ratio medians ({@link PeersSummary}):
 * <ul>
 *   <li>at each N, {@code continuations(1)} at least 0.9x (over MINA) or 0.95x (over Netty) the
 *       Netty client's round trips/s, with client CPU per round trip at most 1.2x Netty's;
 *   <li>at each N, {@code continuations(1)} at least 1.3x plain virtual threads on a socket;
 *   <li>at N = 10,000, {@code continuations(1)}'s p99 no worse than Netty's (ratio at most 1.0);
 *   <li>at each N, at most 0.02 context switches per round trip.
 * </ul>
 * The same targets hold for either workload (a reconnect per session, or keep-alive).
 * Each is MET or MISSED with its figure, or NOT MEASURED with the reason. Nothing asserts them.
 * They are judged for {@code continuations(1)} over MINA, and again over Netty when the run has
 * that client: the targets are the mode's, whichever transport carries it.
 */
final class PeersTargets {
  // The thresholds live with every other target, in Targets.
  static final double MIN_RT_VS_NETTY = Targets.PEERS_MIN_RT_VS_NETTY;
  static final double MIN_RT_VS_NETTY_OVER_NETTY = Targets.PEERS_MIN_RT_VS_NETTY_OVER_NETTY;
  static final double MAX_SWITCHES_PER_RT = Targets.PEERS_MAX_SWITCHES_PER_RT;
  static final double MAX_CPU_VS_NETTY = Targets.PEERS_MAX_CPU_VS_NETTY;
  static final double MIN_RT_VS_PLAIN_VT = Targets.PEERS_MIN_RT_VS_PLAIN_VT;
  static final double MAX_P99_VS_NETTY = Targets.PEERS_MAX_P99_VS_NETTY;
  static final int P99_SESSIONS = Targets.PEERS_P99_SESSIONS;

  /** One target's outcome. */
  @JsonPropertyOrder({"target", "verdict", "figure"})
  public static final class Verdict {
    @JsonProperty("target") public String target;
    /** MET, MISSED or NOT MEASURED. */
    @JsonProperty("verdict") public String verdict;
    @JsonProperty("figure") public String figure;

    Verdict(String target, String verdict, String figure) {
      this.target = target;
      this.verdict = verdict;
      this.figure = figure;
    }

    @Override
    public String toString() {
      return "# target: " + target + ": " + verdict + " (" + figure + ")";
    }
  }

  private PeersTargets() {
  }

  static List<Verdict> check(PeersSummary summary, List<Integer> sessions) {
    List<Verdict> verdicts = new ArrayList<>(check(summary, sessions, ClientLabels.CONT_1));
    if (sessions.stream().anyMatch(n -> summary.median(n, ClientLabels.CONT_1_NETTY) != null)) {
      verdicts.addAll(check(summary, sessions, ClientLabels.CONT_1_NETTY));
    }
    return verdicts;
  }

  /** The targets for one Weft client, named by its row label. */
  private static List<Verdict> check(PeersSummary summary, List<Integer> sessions, String weft) {
    String who = weft.startsWith("weft ") ? weft.substring("weft ".length()) : weft;
    double minRtVsNetty = ClientLabels.CONT_1_NETTY.equals(weft) ? MIN_RT_VS_NETTY_OVER_NETTY : MIN_RT_VS_NETTY;
    List<Verdict> verdicts = new ArrayList<>();
    for (int n : sessions) {
      PeersSummary.Ratio rt = summary.ratio(n, weft, ClientLabels.NETTY,
          PeersSummary.Measure.ROUND_TRIPS_PER_S);
      PeersSummary.Ratio cpu = summary.ratio(n, weft, ClientLabels.NETTY,
          PeersSummary.Measure.CPU_PER_RT);
      String target = "N=" + n + ": " + who + " >= " + minRtVsNetty + "x Netty rt/s with CPU/rt <= "
          + MAX_CPU_VS_NETTY + "x Netty's";
      if (rt == null || rt.median == null || cpu == null || cpu.median == null) {
        verdicts.add(new Verdict(target, "NOT MEASURED", missing(summary, n, weft, ClientLabels.NETTY)));
      } else {
        boolean met = rt.median >= minRtVsNetty && cpu.median <= MAX_CPU_VS_NETTY;
        verdicts.add(new Verdict(target, met ? "MET" : "MISSED",
            "rt/s " + x(rt.median) + ", CPU/rt " + x(cpu.median) + ", medians of within-round ratios"));
      }
    }
    for (int n : sessions) {
      PeersSummary.Ratio vt = summary.ratio(n, weft, ClientLabels.PLAIN_VT,
          PeersSummary.Measure.ROUND_TRIPS_PER_S);
      String target = "N=" + n + ": " + who + " >= " + MIN_RT_VS_PLAIN_VT + "x plain VT java.net.Socket rt/s";
      if (vt == null || vt.median == null) {
        verdicts.add(new Verdict(target, "NOT MEASURED", missing(summary, n, weft, ClientLabels.PLAIN_VT)));
      } else {
        verdicts.add(new Verdict(target, vt.median >= MIN_RT_VS_PLAIN_VT ? "MET" : "MISSED",
            "rt/s " + x(vt.median) + ", median of within-round ratios"));
      }
    }
    String target = "N=" + P99_SESSIONS + ": " + who + " p99 no worse than Netty's";
    PeersSummary.Ratio p99 = summary.ratio(P99_SESSIONS, weft, ClientLabels.NETTY,
        PeersSummary.Measure.P99);
    if (!sessions.contains(P99_SESSIONS)) {
      verdicts.add(new Verdict(target, "NOT MEASURED", "N=" + P99_SESSIONS + " not in this run"));
    } else if (p99 == null || p99.median == null) {
      verdicts.add(new Verdict(target, "NOT MEASURED", missing(summary, P99_SESSIONS, weft, ClientLabels.NETTY)));
    } else {
      PeersSummary.Median c = summary.median(P99_SESSIONS, weft);
      PeersSummary.Median n = summary.median(P99_SESSIONS, ClientLabels.NETTY);
      verdicts.add(new Verdict(target, p99.median <= MAX_P99_VS_NETTY ? "MET" : "MISSED",
          "p99 " + x(p99.median) + " (median of within-round ratios; medians " + us(c.p99Micros) + " vs "
              + us(n.p99Micros) + ")"));
    }
    for (int n : sessions) {
      String switches = "N=" + n + ": " + who + " context switches/rt <= " + MAX_SWITCHES_PER_RT;
      PeersSummary.Median m = summary.median(n, weft);
      if (m == null || m.contextSwitchesPerRoundTrip == null) {
        verdicts.add(new Verdict(switches, "NOT MEASURED", m == null ? weft + " not run at N=" + n
            : "no context-switch figure (" + (m.note == null ? "no clean round" : m.note) + ")"));
      } else {
        verdicts.add(new Verdict(switches, m.contextSwitchesPerRoundTrip <= MAX_SWITCHES_PER_RT ? "MET" : "MISSED",
            String.format(Locale.ROOT, "%.3f, median over the rounds", m.contextSwitchesPerRoundTrip)
                + switchesBeside(summary, n, m)));
      }
    }
    return verdicts;
  }

  /**
   * The voluntary share and Netty's figures in the same run, where measured: most of the figure
   * is preemption where the machine is busy, and then Netty's own is as far from the target.
   */
  private static String switchesBeside(PeersSummary summary, int n, PeersSummary.Median weft) {
    StringBuilder b = new StringBuilder();
    if (weft.voluntaryContextSwitchesPerRoundTrip != null) {
      b.append(String.format(Locale.ROOT, "; voluntary %.3f", weft.voluntaryContextSwitchesPerRoundTrip));
    }
    PeersSummary.Median netty = summary.median(n, ClientLabels.NETTY);
    if (netty != null && netty.contextSwitchesPerRoundTrip != null) {
      b.append(String.format(Locale.ROOT, "; Netty callbacks %.3f", netty.contextSwitchesPerRoundTrip));
      if (netty.voluntaryContextSwitchesPerRoundTrip != null) {
        b.append(String.format(Locale.ROOT, ", voluntary %.3f", netty.voluntaryContextSwitchesPerRoundTrip));
      }
    }
    return b.toString();
  }

  private static String missing(PeersSummary summary, int n, String weft, String other) {
    for (String client : new String[] {weft, other}) {
      PeersSummary.Median m = summary.median(n, client);
      if (m == null) {
        return client + " not run at N=" + n;
      }
      if (m.cleanRounds == 0) {
        return client + " at N=" + n + ": " + m.note;
      }
    }
    return "no round where both ran cleanly";
  }

  private static String x(double ratio) {
    return String.format(Locale.ROOT, "%.2fx", ratio);
  }

  private static String us(Double micros) {
    return micros == null ? "?" : String.format(Locale.ROOT, "%.0f µs", micros);
  }
}
