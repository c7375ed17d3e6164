package io.weft.perf.peers;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One client's run in one round at one N, as written to {@code peers.csv} and {@code peers.json}
 * (Jackson maps the public fields; null is "not measured", with the reason in {@code note}).
 * Rows of skipped clients carry only the identification and the note.
 */
@JsonPropertyOrder({"sessions", "round", "order", "client", "status", "expected_round_trips", "completed_round_trips",
    "server_incr_calls", "failed_sessions", "wall_ms", "round_trips_per_s", "p50_us", "p99_us", "cpu_us_per_rt",
    "context_switches_per_rt", "voluntary_context_switches_per_rt", "jit_cpu_pct", "peak_heap_after_gc_mb", "peak_threads", "listen_overflows", "load_at_round_start", "load_at_round_end",
    "note"})
public final class PeersRow {
  /** {@code status}: every round trip done, and the server counted each. */
  public static final String OK = "ok";
  /** {@code status}: some round trip missing or a session failed; {@code note} says how. */
  public static final String INCOMPLETE = "incomplete";
  /** {@code status}: the client cannot run here; {@code note} says why. */
  public static final String SKIPPED = "skipped";

  @JsonProperty("sessions") public int sessions;
  @JsonProperty("round") public int round;
  /** Position of this client in its round's order, from 1. */
  @JsonProperty("order") public int order;
  @JsonProperty("client") public String client;
  @JsonProperty("status") public String status;
  @JsonProperty("expected_round_trips") public long expectedRoundTrips;
  @JsonProperty("completed_round_trips") public Long completedRoundTrips;
  /** INCR calls redis-server counted during the run (INFO commandstats). */
  @JsonProperty("server_incr_calls") public Long serverIncrCalls;
  @JsonProperty("failed_sessions") public Integer failedSessions;
  @JsonProperty("wall_ms") public Double wallMs;
  @JsonProperty("round_trips_per_s") public Double roundTripsPerSecond;
  @JsonProperty("p50_us") public Double p50Micros;
  @JsonProperty("p99_us") public Double p99Micros;
  @JsonProperty("cpu_us_per_rt") public Double cpuMicrosPerRoundTrip;
  @JsonProperty("context_switches_per_rt") public Double contextSwitchesPerRoundTrip;
  /**
   * The voluntary ones among them: a thread of the client gave up its core (slept in a selector,
   * parked, handed work on); the others are preemption. In-process clients only.
   */
  @JsonProperty("voluntary_context_switches_per_rt") public Double voluntaryContextSwitchesPerRoundTrip;
  /**
   * The JIT compiler threads' share of the client's CPU during the run, in %: well above a few %,
   * the run measured code still being compiled (see {@code --settle-jit-pct}). In-process clients
   * and those in a JVM of their own only.
   */
  @JsonProperty("jit_cpu_pct") public Double jitCpuPct;
  @JsonProperty("peak_heap_after_gc_mb") public Double peakHeapAfterGcMb;
  @JsonProperty("peak_threads") public Integer peakThreads;
  /**
   * Connects the kernel dropped from a full accept queue during the run (TcpExt ListenOverflows
   * of this network namespace, so other processes' too); each costs a client a SYN retransmit.
   */
  @JsonProperty("listen_overflows") public Long listenOverflows;
  @JsonProperty("load_at_round_start") public String loadAtRoundStart;
  @JsonProperty("load_at_round_end") public String loadAtRoundEnd;
  @JsonProperty("note") public String note;

  /** True when every round trip of the run was done. */
  public boolean ok() {
    return OK.equals(status);
  }
}
