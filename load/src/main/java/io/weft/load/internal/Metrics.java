package io.weft.load.internal;

import io.weft.load.record.OpRecorder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * What one run records, shared by all its sessions: per operation name an HdrHistogram
 * {@link Recorder} (wait-free for the sessions, read per interval by the reporter) and error
 * counts by exception type; the number of sessions in an iteration.
 *
 * <p>The measured window starts when the first iteration begins (connects and class loading
 * before it are not part of the run's rate), plus an optional warm-up during which nothing is
 * recorded in the run's figures. During the warm-up the sessions record into a shadow of each
 * operation that nobody reads, through the same code: the code the JIT compiles while warming up
 * is the code that records in the window (a warm-up that skipped recording left the recording
 * branch uncompiled, and the window's first values threw the whole compiled session path back to
 * the interpreter, recompiled seconds into the window). Latencies are in nanoseconds. In the open model each operation's latency counts from its
 * iteration's intended start (the time the iteration waited for a free session is part of it)
 * and its service time, from its own start, is kept beside it.
 */
public final class Metrics {
  /** Where errors raised outside any timed operation are counted. */
  public static final String ITERATION = "iteration";
  /** Where failed (re)connects are counted. */
  public static final String CONNECT = "connect";

  private final boolean withServiceTime;
  private final long warmupNanos;
  /** {@link #MEASURED} when there is no warm-up: everything is in the window, as {@link #recording} says. */
  private final int withoutWarmup;
  private final Ticker ticker;
  private final ConcurrentHashMap<String, Op> ops = new ConcurrentHashMap<>();
  private final AtomicLong firstBegin = new AtomicLong(UNSET);
  private volatile boolean recording;
  private final AtomicInteger busy = new AtomicInteger();
  private final LongAdder errors = new LongAdder();
  private final LongAdder backoffs = new LongAdder();
  /** Clean iterations by phase: {@link #WARMING} (not reported) and {@link #MEASURED}. */
  private final LongAdder[] cleanIterations = {new LongAdder(), new LongAdder()};
  private final LongAdder backoffNanos = new LongAdder();
  private volatile boolean backoffAtCap;
  private final LongAdder pacedConnects = new LongAdder();
  private final LongAdder pacingNanos = new LongAdder();
  private final LongAdder connectsBegun = new LongAdder();

  private static final long UNSET = Long.MIN_VALUE;
  /** {@link #phase}: before the measured window. */
  static final int WARMING = 0;
  /** {@link #phase}: in the measured window. */
  static final int MEASURED = 1;

  public Metrics(boolean withServiceTime) {
    this(withServiceTime, 0L, Ticker.system());
  }

  /**
   * @param warmupNanos for how long after the first iteration begins nothing is recorded: the
   *     measured window starts then
   * @param ticker the run's clock, read by every session's recorder
   */
  public Metrics(boolean withServiceTime, long warmupNanos, Ticker ticker) {
    this.withServiceTime = withServiceTime;
    this.warmupNanos = warmupNanos;
    this.ticker = ticker;
    this.recording = warmupNanos <= 0L;
    this.withoutWarmup = warmupNanos <= 0L ? MEASURED : WARMING;
  }

  /** The run's clock. */
  public Ticker ticker() {
    return ticker;
  }

  /**
   * Where the measured window starts (the ticker's time): the first iteration's begin plus the warm-up;
   * {@code Long.MIN_VALUE} while no iteration has begun.
   */
  public long measuredFrom() {
    long first = firstBegin.get();
    return first == UNSET ? UNSET : first + warmupNanos;
  }

  /** Whether operations are recorded now: not before the measured window. */
  boolean recording() {
    if (recording) {
      return true;
    }
    long from = measuredFrom();
    if (from != UNSET && ticker.nanoTime() - from >= 0L) {
      recording = true;
      return true;
    }
    return false;
  }

  /**
   * {@link #MEASURED} if the measured window has begun at {@code now} (the ticker's time), else
   * {@link #WARMING}. Worked out without a branch that changes its way when the window begins, so
   * that no compiled code depends on which phase it saw (see the class javadoc).
   */
  int phase(long now) {
    long first = firstBegin.get();
    if (first == UNSET) {
      return withoutWarmup;
    }
    return (int) (~(now - (first + warmupNanos)) >>> 63) | withoutWarmup;
  }

  /** A recorder for one session. */
  public OpRecorder newSession() {
    return new SessionOps(this);
  }

  Op op(String name) {
    Op op = ops.get(name);
    return op != null ? op : ops.computeIfAbsent(name, n -> new Op(n, withServiceTime));
  }

  /** An operation name as the interval log can tag it: no whitespace, no commas. */
  static String cleanName(String name) {
    String clean = name.trim().replaceAll("[\\s,]+", "_");
    return clean.isEmpty() ? "_" : clean;
  }

  /** The operations seen so far, sorted by name. */
  public List<Op> ops() {
    List<Op> list = new ArrayList<>(ops.values());
    Collections.sort(list, (a, b) -> a.name.compareTo(b.name));
    return list;
  }

  public boolean withServiceTime() {
    return withServiceTime;
  }

  /** Sessions in an iteration now. */
  public int busy() {
    return busy.get();
  }

  /** Errors so far, all operations. */
  public long errors() {
    return errors.sum();
  }

  /** A connect took a turn of the run's pacing, to be made after {@code waitNanos}. */
  void paced(long waitNanos) {
    pacedConnects.increment();
    pacingNanos.add(waitNanos);
  }

  /** Connects that took a turn of the run's pacing (first connects, reconnects after failures). */
  public long pacedConnects() {
    return pacedConnects.sum();
  }

  /** The time paced connects waited for their turn, in nanoseconds. */
  public long pacingNanos() {
    return pacingNanos.sum();
  }

  /** A user begins a connect (each user's first, and every reconnect): the timeline's {@code connects}. */
  void connectBegun() {
    connectsBegun.increment();
  }

  /** Connects begun so far, in the warm-up too. */
  public long connectsBegun() {
    return connectsBegun.sum();
  }

  /**
   * A user has backed off for {@code nanos} after a failed connect or iteration; {@code atCap}:
   * a backoff of the longest, {@link Plan#BACKOFF_MAX_NANOS}.
   */
  void backedOff(long nanos, boolean atCap) {
    backoffs.increment();
    backoffNanos.add(nanos);
    if (atCap && !backoffAtCap) {
      backoffAtCap = true;
    }
  }

  /** Whether a user has waited a backoff of the longest ({@link Plan#BACKOFF_MAX_NANOS}): it keeps failing. */
  public boolean backoffAtCap() {
    return backoffAtCap;
  }

  /** An iteration ended without an exception. */
  void iterationSucceeded() {
    cleanIterations[phase(ticker.nanoTime())].increment();
  }

  /** Iterations that ended without an exception, in the measured window. */
  public long cleanIterations() {
    return cleanIterations[MEASURED].sum();
  }

  /** Backoffs after failed connects or iterations so far. */
  public long backoffs() {
    return backoffs.sum();
  }

  /**
   * The time users spent backing off after failed connects or iterations, in nanoseconds: what
   * they waited (a backoff cut short by the run's end counts the part waited).
   */
  public long backoffNanos() {
    return backoffNanos.sum();
  }

  void iterationStarted() {
    if (firstBegin.get() == UNSET) {
      firstBegin.compareAndSet(UNSET, ticker.nanoTime());
    }
    busy.incrementAndGet();
  }

  void iterationEnded() {
    busy.decrementAndGet();
  }

  void countError(Op op, Throwable error) {
    countError(op, error.getClass().getName());
  }

  void countError(Op op, String type) {
    if (!recording()) {
      return;
    }
    op.errors.computeIfAbsent(type.replaceAll("\\s+", "_"), t -> new LongAdder()).increment();
    errors.increment();
  }

  /** One named operation's recorders and error counts. */
  public static final class Op {
    final String name;
    final Recorder latency = new Recorder(3);
    final Recorder service;
    /** From the last send within the operation to the first byte after it (see SessionOps). */
    final Recorder server = new Recorder(3);
    /** The operation's time less {@link #server}: the client's own part. */
    final Recorder client = new Recorder(3);
    final ConcurrentHashMap<String, LongAdder> errors = new ConcurrentHashMap<>();
    /** Where values go by {@link Metrics#phase}: a shadow of this operation while warming, then this. */
    final Op[] byPhase;

    Op(String name, boolean withServiceTime) {
      this(name, withServiceTime, true);
    }

    private Op(String name, boolean withServiceTime, boolean measured) {
      this.name = name;
      this.service = withServiceTime ? new Recorder(3) : null;
      this.byPhase = measured ? new Op[] {new Op(name, withServiceTime, false), this} : null;
    }

    public String name() {
      return name;
    }
  }
}
