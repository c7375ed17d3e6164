package io.weft.perf.peers;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The rounds reduced: per N and client the median of each figure over the rounds in which it
 * ran cleanly, and ratios between two clients taken within each round (both clean) and then
 * their median over the rounds. Ratios within a round compare runs made minutes apart on the
 * same machine state; medians of ratios are steadier than ratios of medians on a busy machine.
 */
final class PeersSummary {
  /** Which figure a ratio divides. */
  enum Measure {
    ROUND_TRIPS_PER_S("rt/s", r -> r.roundTripsPerSecond),
    CPU_PER_RT("CPU/rt", r -> r.cpuMicrosPerRoundTrip),
    P99("p99", r -> r.p99Micros);

    final String label;
    final Function<PeersRow, Double> figure;

    Measure(String label, Function<PeersRow, Double> figure) {
      this.label = label;
      this.figure = figure;
    }
  }

  /** A ratio to take: numerator client's figure over denominator client's. */
  static final class RatioSpec {
    final String numerator;
    final String denominator;
    final Measure measure;

    RatioSpec(String numerator, String denominator, Measure measure) {
      this.numerator = numerator;
      this.denominator = denominator;
      this.measure = measure;
    }
  }

  /** The ratios every report shows. */
  static final List<RatioSpec> RATIOS = List.of(
      new RatioSpec(ClientLabels.CONT_1, ClientLabels.NETTY, Measure.ROUND_TRIPS_PER_S),
      new RatioSpec(ClientLabels.CONT_1, ClientLabels.NETTY, Measure.CPU_PER_RT),
      new RatioSpec(ClientLabels.CONT_1, ClientLabels.NETTY, Measure.P99),
      new RatioSpec(ClientLabels.CONT_1, ClientLabels.PLAIN_VT, Measure.ROUND_TRIPS_PER_S),
      new RatioSpec(ClientLabels.CONT_2, ClientLabels.CONT_1, Measure.ROUND_TRIPS_PER_S),
      new RatioSpec(ClientLabels.WEFT_VT_SOCKET, ClientLabels.PLAIN_VT, Measure.ROUND_TRIPS_PER_S),
      new RatioSpec(ClientLabels.WEFT_VT_MINA, ClientLabels.PLAIN_VT, Measure.ROUND_TRIPS_PER_S),
      new RatioSpec(ClientLabels.NETTY, ClientLabels.REDIS_BENCHMARK, Measure.ROUND_TRIPS_PER_S),
      new RatioSpec(ClientLabels.CONT_1, ClientLabels.REDIS_BENCHMARK, Measure.ROUND_TRIPS_PER_S),
      // The same client over Weft's Netty transport: against the hand-written Netty client and MINA.
      new RatioSpec(ClientLabels.CONT_1_NETTY, ClientLabels.NETTY, Measure.ROUND_TRIPS_PER_S),
      new RatioSpec(ClientLabels.CONT_1_NETTY, ClientLabels.NETTY, Measure.CPU_PER_RT),
      new RatioSpec(ClientLabels.CONT_1_NETTY, ClientLabels.NETTY, Measure.P99),
      new RatioSpec(ClientLabels.CONT_1_NETTY, ClientLabels.CONT_1, Measure.ROUND_TRIPS_PER_S),
      new RatioSpec(ClientLabels.CONT_1_NETTY, ClientLabels.PLAIN_VT, Measure.ROUND_TRIPS_PER_S),
      new RatioSpec(ClientLabels.WEFT_VT_NETTY, ClientLabels.PLAIN_VT, Measure.ROUND_TRIPS_PER_S));

  /** Per N and client, the medians over its clean rounds. */
  @JsonPropertyOrder({"sessions", "client", "clean_rounds", "rounds", "round_trips_per_s", "p50_us", "p99_us",
      "cpu_us_per_rt", "context_switches_per_rt", "voluntary_context_switches_per_rt", "jit_cpu_pct", "peak_heap_after_gc_mb",
      "peak_threads",
      "note"})
  public static final class Median {
    @JsonProperty("sessions") public int sessions;
    @JsonProperty("client") public String client;
    @JsonProperty("clean_rounds") public int cleanRounds;
    @JsonProperty("rounds") public int rounds;
    @JsonProperty("round_trips_per_s") public Double roundTripsPerSecond;
    @JsonProperty("p50_us") public Double p50Micros;
    @JsonProperty("p99_us") public Double p99Micros;
    @JsonProperty("cpu_us_per_rt") public Double cpuMicrosPerRoundTrip;
    @JsonProperty("context_switches_per_rt") public Double contextSwitchesPerRoundTrip;
    @JsonProperty("voluntary_context_switches_per_rt") public Double voluntaryContextSwitchesPerRoundTrip;
    /** (largest - smallest) / median of the clean rounds' round trips/s, in %; null below two rounds. */
    @JsonProperty("round_trips_per_s_spread_pct") public Double roundTripsPerSecondSpreadPct;
    /** The same for CPU per round trip. */
    @JsonProperty("cpu_us_per_rt_spread_pct") public Double cpuSpreadPct;
    @JsonProperty("jit_cpu_pct") public Double jitCpuPct;
    @JsonProperty("peak_heap_after_gc_mb") public Double peakHeapAfterGcMb;
    @JsonProperty("peak_threads") public Double peakThreads;
    /** Why rounds are missing (the first skip or failure), or null. */
    @JsonProperty("note") public String note;
  }

  /** One ratio at one N: per round, and the median over the rounds where both ran cleanly. */
  @JsonPropertyOrder({"sessions", "ratio", "measure", "median", "per_round"})
  public static final class Ratio {
    @JsonProperty("sessions") public int sessions;
    @JsonProperty("ratio") public String name;
    @JsonProperty("measure") public String measure;
    @JsonProperty("median") public Double median;
    @JsonProperty("per_round") public List<Double> perRound = new ArrayList<>();
  }

  final List<Median> medians = new ArrayList<>();
  final List<Ratio> ratios = new ArrayList<>();

  static PeersSummary of(List<PeersRow> rows) {
    PeersSummary summary = new PeersSummary();
    Map<Integer, Map<String, List<PeersRow>>> byN = new LinkedHashMap<>();
    for (PeersRow r : rows) {
      byN.computeIfAbsent(r.sessions, n -> new LinkedHashMap<>()).computeIfAbsent(r.client, c -> new ArrayList<>())
          .add(r);
    }
    for (Map.Entry<Integer, Map<String, List<PeersRow>>> n : byN.entrySet()) {
      for (Map.Entry<String, List<PeersRow>> c : n.getValue().entrySet()) {
        summary.medians.add(median(n.getKey(), c.getKey(), c.getValue()));
      }
      for (RatioSpec spec : RATIOS) {
        Ratio ratio = ratio(n.getKey(), spec, n.getValue());
        if (ratio != null) {
          summary.ratios.add(ratio);
        }
      }
    }
    return summary;
  }

  private static Median median(int sessions, String client, List<PeersRow> rows) {
    Median m = new Median();
    m.sessions = sessions;
    m.client = client;
    m.rounds = rows.size();
    List<PeersRow> clean = new ArrayList<>();
    for (PeersRow r : rows) {
      if (r.ok()) {
        clean.add(r);
      } else if (m.note == null) {
        m.note = r.status + ": " + r.note;
      }
    }
    m.cleanRounds = clean.size();
    m.roundTripsPerSecond = median(clean, r -> r.roundTripsPerSecond);
    m.p50Micros = median(clean, r -> r.p50Micros);
    m.p99Micros = median(clean, r -> r.p99Micros);
    m.cpuMicrosPerRoundTrip = median(clean, r -> r.cpuMicrosPerRoundTrip);
    m.contextSwitchesPerRoundTrip = median(clean, r -> r.contextSwitchesPerRoundTrip);
    m.voluntaryContextSwitchesPerRoundTrip = median(clean, r -> r.voluntaryContextSwitchesPerRoundTrip);
    m.roundTripsPerSecondSpreadPct = spreadPct(clean, r -> r.roundTripsPerSecond);
    m.cpuSpreadPct = spreadPct(clean, r -> r.cpuMicrosPerRoundTrip);
    m.jitCpuPct = median(clean, r -> r.jitCpuPct);
    m.peakHeapAfterGcMb = median(clean, r -> r.peakHeapAfterGcMb);
    m.peakThreads = median(clean, r -> r.peakThreads == null ? null : r.peakThreads.doubleValue());
    return m;
  }

  /** Null when either client is not in this N's rows at all. */
  private static Ratio ratio(int sessions, RatioSpec spec, Map<String, List<PeersRow>> byClient) {
    List<PeersRow> top = byClient.get(spec.numerator);
    List<PeersRow> bottom = byClient.get(spec.denominator);
    if (top == null || bottom == null) {
      return null;
    }
    Ratio ratio = new Ratio();
    ratio.sessions = sessions;
    ratio.name = spec.numerator + " / " + spec.denominator;
    ratio.measure = spec.measure.label;
    Set<Integer> rounds = new LinkedHashSet<>();
    for (PeersRow r : top) {
      rounds.add(r.round);
    }
    for (int round : rounds) {
      Double a = cleanFigure(top, round, spec.measure);
      Double b = cleanFigure(bottom, round, spec.measure);
      ratio.perRound.add(a == null || b == null || b == 0.0 ? null : a / b);
    }
    List<Double> present = new ArrayList<>();
    for (Double d : ratio.perRound) {
      if (d != null) {
        present.add(d);
      }
    }
    ratio.median = median(present);
    return ratio;
  }

  private static Double cleanFigure(List<PeersRow> rows, int round, Measure measure) {
    for (PeersRow r : rows) {
      if (r.round == round) {
        return r.ok() ? measure.figure.apply(r) : null;
      }
    }
    return null;
  }

  private static Double median(List<PeersRow> rows, Function<PeersRow, Double> figure) {
    List<Double> values = new ArrayList<>();
    for (PeersRow r : rows) {
      Double v = figure.apply(r);
      if (v != null) {
        values.add(v);
      }
    }
    return median(values);
  }

  /**
   * How far apart the rounds' figures are: (largest - smallest) / median, in %, over the rows
   * that have the figure; null for fewer than two. What a before/after difference must exceed
   * to mean anything.
   */
  static Double spreadPct(List<PeersRow> rows, Function<PeersRow, Double> figure) {
    List<Double> values = new ArrayList<>();
    for (PeersRow r : rows) {
      Double v = figure.apply(r);
      if (v != null) {
        values.add(v);
      }
    }
    Double median = median(values);
    if (values.size() < 2 || median == null || median == 0.0) {
      return null;
    }
    return (Collections.max(values) - Collections.min(values)) / median * 100.0;
  }

  /** The median; the mean of the middle two for an even count; null for none. */
  static Double median(List<Double> values) {
    if (values.isEmpty()) {
      return null;
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int mid = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2.0;
  }

  Median median(int sessions, String client) {
    for (Median m : medians) {
      if (m.sessions == sessions && m.client.equals(client)) {
        return m;
      }
    }
    return null;
  }

  Ratio ratio(int sessions, String numerator, String denominator, Measure measure) {
    String name = numerator + " / " + denominator;
    for (Ratio r : ratios) {
      if (r.sessions == sessions && r.name.equals(name) && r.measure.equals(measure.label)) {
        return r;
      }
    }
    return null;
  }
}
