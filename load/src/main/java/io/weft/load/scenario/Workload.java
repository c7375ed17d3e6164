package io.weft.load.scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The load profile and thresholds a {@link Scenario} runs with, declared in Java beside the
 * scenario (Gatling's {@code setUp(...).assertions(...)}, k6's {@code options}). Flags on the
 * command line override it setting by setting: a flag of the other workload model replaces the
 * model, and any {@code --threshold} replaces the thresholds declared here.
 *
 * <pre>{@code
 * @Override
 * public Workload workload() {
 *   return Workload.open()
 *       .stage(Duration.ofSeconds(30), 0, 500)     // ramp to 500 iterations/s
 *       .stage(Duration.ofMinutes(2), 500)         // hold
 *       .maxSessions(200)
 *       .connectWindow(16)                         // at most 16 users unheard from
 *       .threshold("GET:p99<20ms")
 *       .threshold("errors<0.1%");
 * }
 * }</pre>
 *
 * <p>A builder, read once before the run from a scenario instance made for that purpose. Every
 * setter checks its argument and returns this; a setting of the other model throws
 * {@link IllegalStateException}. The getters answer null for what was not declared.
 */
public final class Workload {
  /** The closed model: a number of users, each running iterations back to back. */
  public static final String CLOSED = "closed";
  /** The open model: arrivals of iterations at a rate, whatever the server does. */
  public static final String OPEN = "open";

  private final String model;
  private Integer users;
  private Long iterations;
  private Duration duration;
  private Duration think;
  private Duration warmup;
  private Integer maxSessions;
  private Double connectRate;
  private Integer connectBurst;
  private Integer connectWindow;
  private Duration connectWindowHold;
  private final List<String> stages = new ArrayList<>();
  private final List<String> thresholds = new ArrayList<>();

  private Workload(String model) {
    this.model = model;
  }

  /**
   * The closed model with {@code users} virtual users.
   *
   * @param users the users, at least 1
   * @return a new workload
   */
  public static Workload closed(int users) {
    if (users < 1) {
      throw new IllegalArgumentException("users < 1: " + users);
    }
    Workload w = new Workload(CLOSED);
    w.users = users;
    return w;
  }

  /**
   * The open model; give it a {@link #rate} or {@link #stage}s.
   *
   * @return a new workload
   */
  public static Workload open() {
    return new Workload(OPEN);
  }

  /**
   * Closed model: iterations per user (instead of a duration).
   *
   * @param n iterations, at least 1
   * @return this
   */
  public Workload iterations(long n) {
    closedOnly("iterations");
    if (n < 1) {
      throw new IllegalArgumentException("iterations < 1: " + n);
    }
    iterations = n;
    return this;
  }

  /**
   * Closed model: how long users start iterations; open model with {@link #rate}: how long.
   *
   * @param d a positive duration
   * @return this
   */
  public Workload duration(Duration d) {
    duration = positive(d, "duration");
    return this;
  }

  /**
   * Closed model: the pause between a user's iterations.
   *
   * @param d a duration, not negative
   * @return this
   */
  public Workload think(Duration d) {
    closedOnly("think");
    think = notNegative(d, "think");
    return this;
  }

  /**
   * Record nothing for this long after the first iteration begins.
   *
   * @param d a duration, not negative
   * @return this
   */
  public Workload warmup(Duration d) {
    warmup = notNegative(d, "warmup");
    return this;
  }

  /**
   * Open model: a constant arrival rate for {@link #duration}.
   *
   * @param perSecond iterations a second, more than 0
   * @return this
   */
  public Workload rate(double perSecond) {
    openOnly("rate");
    if (!(perSecond > 0)) {
      throw new IllegalArgumentException("rate <= 0: " + perSecond);
    }
    if (!stages.isEmpty()) {
      throw new IllegalStateException("rate and stages: choose one");
    }
    stages.add("rate:" + number(perSecond));
    return this;
  }

  /**
   * Open model: a stage at a constant rate.
   *
   * @param length the stage's length
   * @param perSecond its rate
   * @return this
   */
  public Workload stage(Duration length, double perSecond) {
    return stage(length, perSecond, perSecond);
  }

  /**
   * Open model: a stage whose rate goes linearly from {@code fromPerSecond} to {@code toPerSecond}.
   *
   * @param length the stage's length
   * @param fromPerSecond the rate at its start, not negative
   * @param toPerSecond the rate at its end, not negative
   * @return this
   */
  public Workload stage(Duration length, double fromPerSecond, double toPerSecond) {
    openOnly("stage");
    positive(length, "stage length");
    if (fromPerSecond < 0 || toPerSecond < 0) {
      throw new IllegalArgumentException("stage rate < 0: " + fromPerSecond + " -> " + toPerSecond);
    }
    if (stages.size() == 1 && stages.get(0).startsWith("rate:")) {
      throw new IllegalStateException("rate and stages: choose one");
    }
    stages.add(length.toNanos() / 1_000_000L + "ms:" + number(fromPerSecond) + "->" + number(toPerSecond));
    return this;
  }

  /**
   * Open model: sessions (connections), the cap on iterations in flight.
   *
   * @param n sessions, at least 1
   * @return this
   */
  public Workload maxSessions(int n) {
    openOnly("maxSessions");
    if (n < 1) {
      throw new IllegalArgumentException("maxSessions < 1: " + n);
    }
    maxSessions = n;
    return this;
  }

  /**
   * How fast users connect: {@code perSecond} a second after {@code burst} at once; 0 for all at once.
   *
   * @param perSecond connects a second, not negative
   * @param burst connects at once, at least 1
   * @return this
   */
  public Workload connectRate(double perSecond, int burst) {
    if (perSecond < 0 || burst < 1) {
      throw new IllegalArgumentException("connectRate < 0 or burst < 1: " + perSecond + ", " + burst);
    }
    connectRate = perSecond;
    connectBurst = burst;
    return this;
  }

  /**
   * The connect window ({@code --connect-window}): at most {@code users} users connected and not
   * yet heard from at once, the others wait before they connect; 0 for none. Without it the run
   * has the default: 32 in the closed model over TCP, none in the open model.
   *
   * @param users the window, not negative; 0 for no window
   * @return this
   */
  public Workload connectWindow(int users) {
    if (users < 0) {
      throw new IllegalArgumentException("connectWindow < 0: " + users);
    }
    connectWindow = users;
    return this;
  }

  /**
   * How long a place in the connect window is held from its connect without word from the server
   * before it is freed for the next user ({@code --connect-window-hold}; 1 s without it).
   *
   * @param hold a positive duration
   * @return this
   */
  public Workload connectWindowHold(Duration hold) {
    connectWindowHold = positive(hold, "connectWindowHold");
    return this;
  }

  /**
   * A threshold, written as on the command line: {@code [OPERATION:]METRIC OP VALUE}, e.g.
   * {@code "GET:p99<20ms"}, {@code "errors<0.1%"}, {@code "rate>=1000"}. Checked before the run.
   *
   * @param threshold the threshold
   * @return this
   */
  public Workload threshold(String threshold) {
    thresholds.add(Objects.requireNonNull(threshold, "threshold"));
    return this;
  }

  /**
   * The model: {@link #CLOSED} or {@link #OPEN}.
   *
   * @return it, or null if not declared
   */
  public String model() {
    return model;
  }

  /**
   * Closed model: the users.
   *
   * @return it, or null if not declared
   */
  public Integer users() {
    return users;
  }

  /**
   * Closed model: iterations per user.
   *
   * @return it, or null if not declared
   */
  public Long iterations() {
    return iterations;
  }

  /**
   * How long.
   *
   * @return it, or null if not declared
   */
  public Duration duration() {
    return duration;
  }

  /**
   * Closed model: the think time.
   *
   * @return it, or null if not declared
   */
  public Duration think() {
    return think;
  }

  /**
   * The warm-up.
   *
   * @return it, or null if not declared
   */
  public Duration warmup() {
    return warmup;
  }

  /**
   * Open model: the sessions.
   *
   * @return it, or null if not declared
   */
  public Integer maxSessions() {
    return maxSessions;
  }

  /**
   * Connects a second; 0 for all at once.
   *
   * @return it, or null if not declared
   */
  public Double connectRate() {
    return connectRate;
  }

  /**
   * Connects at once.
   *
   * @return it, or null if not declared
   */
  public Integer connectBurst() {
    return connectBurst;
  }

  /**
   * The connect window; 0 for none.
   *
   * @return it, or null if not declared
   */
  public Integer connectWindow() {
    return connectWindow;
  }

  /**
   * How long a place in the connect window is held without word from the server.
   *
   * @return it, or null if not declared
   */
  public Duration connectWindowHold() {
    return connectWindowHold;
  }

  /**
   * The open model's stages as the command line writes them ({@code 30000ms:0->500}), or one
   * {@code rate:R} for a constant rate.
   *
   * @return the stages, unmodifiable
   */
  public List<String> stages() {
    return List.copyOf(stages);
  }

  /**
   * The thresholds, as the command line writes them.
   *
   * @return the thresholds, unmodifiable
   */
  public List<String> thresholds() {
    return List.copyOf(thresholds);
  }

  private void closedOnly(String what) {
    if (!CLOSED.equals(model)) {
      throw new IllegalStateException(what + " is for the closed model");
    }
  }

  private void openOnly(String what) {
    if (!OPEN.equals(model)) {
      throw new IllegalStateException(what + " is for the open model");
    }
  }

  private static Duration positive(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " <= 0: " + d);
    }
    return d;
  }

  private static Duration notNegative(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative()) {
      throw new IllegalArgumentException(what + " < 0: " + d);
    }
    return d;
  }

  private static String number(double v) {
    return String.format(Locale.ROOT, "%s", v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v));
  }
}
