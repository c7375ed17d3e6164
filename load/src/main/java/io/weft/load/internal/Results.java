package io.weft.load.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * A finished run's figures, from a live run or merged from shards' interval logs: per
 * operation the whole-run latency histogram, its interval figures and its errors by type; the
 * interval figures of all operations together; and what the run was.
 */
public final class Results {
  /** Per-second figures of one interval; latencies in nanoseconds. */
  public static final class Interval {
    public final double startSeconds;
    public final double seconds;
    public final long count;
    public final long errors;
    public final long p50;
    public final long p90;
    public final long p99;
    public final long max;
    /**
     * Connects begun in the interval (every user's first and every reconnect); 0 in an operation's
     * own intervals; -1 if unknown (a merge with a log written before weft-load counted them).
     */
    public final long connects;
    /**
     * Users waiting for a place in the connect window at the interval's end (merged: all shards');
     * -1 for a run without a window, and in an operation's own intervals.
     */
    public final long windowWaiting;
    /** Places in the connect window freed without word from the server in the interval; 0 without a window. */
    public final long freedUnheard;
    /**
     * The connect window's size at the interval's end (it grows while that pays; merged: all
     * shards' summed); -1 for a run without a window, in an operation's own intervals, and in a
     * merge with a log written before weft-load logged it.
     */
    public final long windowSize;

    public Interval(double startSeconds, double seconds, Histogram h, long errors) {
      this(startSeconds, seconds, h, errors, 0L, -1L, 0L, -1L);
    }

    public Interval(double startSeconds, double seconds, Histogram h, long errors, long connects, long windowWaiting,
        long freedUnheard, long windowSize) {
      this.startSeconds = startSeconds;
      this.seconds = seconds;
      this.count = h.getTotalCount();
      this.errors = errors;
      this.p50 = h.getValueAtPercentile(50);
      this.p90 = h.getValueAtPercentile(90);
      this.p99 = h.getValueAtPercentile(99);
      this.max = h.getMaxValue();
      this.connects = connects;
      this.windowWaiting = windowWaiting;
      this.freedUnheard = freedUnheard;
      this.windowSize = windowSize;
    }

    public double rate() {
      return seconds <= 0 ? 0 : count / seconds;
    }
  }

  /** One operation's figures. */
  public static final class Op {
    public final String name;
    public final Histogram latency = new Histogram(3);
    /** Open model: service time, from the operation's own start; else null. */
    public Histogram service;
    /**
     * Server time, from the last send in an operation to the first byte after it, for the
     * operations that had both; null when none had (a transport that does not time replies).
     */
    public Histogram server;
    /** The operation's time less {@link #server}, for the same operations; null with it. */
    public Histogram client;
    /** Closed model: {@link #latency} corrected for coordinated omission; else null. */
    public Histogram corrected;
    /** Closed model: the expected interval {@link #corrected} was made with, in nanoseconds. */
    public long expectedIntervalNanos;
    public final List<Interval> intervals = new ArrayList<>();
    public final Map<String, Long> errors = new TreeMap<>();

    public Op(String name) {
      this.name = name;
    }

    public long errorCount() {
      long n = 0;
      for (long e : errors.values()) {
        n += e;
      }
      return n;
    }
  }

  /** "open" or "closed". */
  public String model;
  public String mode;
  public String scenario;
  public long startEpochMillis;
  public double seconds;
  /** Closed model: the expected interval asked for, in nanoseconds, or -1 for each operation's own. */
  public long expectedIntervalNanos = -1;
  /** Closed model: the number of virtual users; open model: the cap on sessions. */
  public long users;
  public final Map<String, String> info = new LinkedHashMap<>();
  /** What the run's connect window did (merged: the shards' windows together), or null without one. */
  WindowFigures window;
  /** The window's configuration, as {@code ConnectWindow.toString()} says it, with {@link #window}. */
  String windowConfig;
  /** Set when a session met a frame that cannot suspend: what it said; the run then fails. */
  public String notInstrumented;
  public final Map<String, Op> ops = new TreeMap<>();
  public final List<Interval> timeline = new ArrayList<>();

  public Op op(String name) {
    return ops.computeIfAbsent(name, Op::new);
  }

  public boolean open() {
    return "open".equals(model);
  }

  /** All operations' latencies together. */
  public Histogram allLatency() {
    Histogram all = new Histogram(3);
    for (Op op : ops.values()) {
      all.add(op.latency);
    }
    return all;
  }

  public long totalCount() {
    long n = 0;
    for (Op op : ops.values()) {
      n += op.latency.getTotalCount();
    }
    return n;
  }

  /** Live run: iterations that ended without an exception; 0 when merged from logs. */
  public long cleanIterations;

  /**
   * Operations that succeeded, connects not counted: the scenario's own work. A scenario that
   * times no operation of its own counts its iterations that ended without an exception.
   */
  public long succeeded() {
    long n = 0;
    boolean timesOwn = false;
    for (Op op : ops.values()) {
      if (!Metrics.CONNECT.equals(op.name) && !Metrics.ITERATION.equals(op.name) && !"session".equals(op.name)) {
        n += op.latency.getTotalCount();
        timesOwn = true;
      }
    }
    return timesOwn ? n : cleanIterations;
  }

  public long totalErrors() {
    long n = 0;
    for (Op op : ops.values()) {
      n += op.errorCount();
    }
    return n;
  }

  /**
   * Closed model: each operation's latencies corrected for coordinated omission (HdrHistogram's
   * {@code copyCorrectedForCoordinatedOmission}, the same figures as recording each value with
   * {@code recordValueWithExpectedInterval}). The expected interval is {@code expectedNanos}
   * if that is 0 or more; otherwise each operation's own mean interval per user, the users
   * times the run's length over the operation's count: the pace at which each user issued it.
   */
  public void correct(long expectedNanos) {
    this.expectedIntervalNanos = expectedNanos;
    for (Op op : ops.values()) {
      long n = op.latency.getTotalCount();
      long expected = expectedNanos >= 0 ? expectedNanos
          : n == 0 ? 0 : (long) (users * seconds * 1e9 / n);
      op.expectedIntervalNanos = expected;
      op.corrected = expected > 0 ? op.latency.copyCorrectedForCoordinatedOmission(expected) : op.latency.copy();
    }
  }
}
