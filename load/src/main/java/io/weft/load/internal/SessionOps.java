package io.weft.load.internal;

import io.weft.load.record.OpRecorder;
import io.weft.transport.spi.ReplyTiming;
import java.util.HashMap;

/**
 * One session's {@link OpRecorder}: a timer per operation name, the lag of the current
 * iteration (how late it started after its intended start; 0 in the closed model), and the
 * operation running now, to which an exception is charged.
 *
 * <p>When the session's transport times its replies ({@link ReplyTiming}), an operation whose
 * last send and the first byte after it both fall inside it also records the server's time
 * (that first byte less that send) and the client's own (the operation's time less the
 * server's). For an operation of one request and its reply that is the server's time plus the
 * network's; of several exchanges, the last one's.
 */
final class SessionOps implements OpRecorder {
  private final Metrics metrics;
  private final Ticker ticker;
  private final HashMap<String, SessionTimer> timers = new HashMap<>();
  private final HashMap<String, Metrics.Op> ops = new HashMap<>();
  private long lagNanos;
  private SessionTimer running;
  private ReplyTiming replies;

  SessionOps(Metrics metrics) {
    this.metrics = metrics;
    this.ticker = metrics.ticker();
  }

  /** The transport the session uses now, timed with this session's clock; null for none. */
  void replies(ReplyTiming replies) {
    if (replies != null) {
      replies.timeReplies(ticker);
    }
    this.replies = replies;
  }

  /** Called by the driver before each iteration. */
  void beginIteration(long lagNanos) {
    this.lagNanos = lagNanos < 0L ? 0L : lagNanos;
    this.running = null;
  }

  @Override
  public Timer start(String name) {
    SessionTimer t = timers.get(name);
    if (t == null) {
      t = new SessionTimer(this, op(name));
      timers.put(name, t);
    }
    t.startNanos = ticker.nanoTime();
    t.running = true;
    running = t;
    return t;
  }

  @Override
  public long start() {
    return ticker.nanoTime();
  }

  @Override
  public void stop(String name, long startNanos) {
    long now = ticker.nanoTime();
    Metrics.Op op = op(name);
    record(op, startNanos, now);
  }

  @Override
  public void error(String name, Throwable error) {
    metrics.countError(op(name), error);
  }

  @Override
  public void error(String name, String type) {
    metrics.countError(op(name), type);
  }

  /** Charges {@code error} to the running operation, or to the iteration if none runs. */
  void failed(Throwable error, String fallback) {
    SessionTimer t = running;
    Metrics.Op op = t != null && t.running ? t.op : op(fallback);
    if (t != null) {
      t.running = false;
    }
    running = null;
    metrics.countError(op, error);
  }

  private Metrics.Op op(String name) {
    Metrics.Op op = ops.get(name);
    if (op == null) {
      op = metrics.op(Metrics.cleanName(name));
      ops.put(name, op);
    }
    return op;
  }

  /**
   * Records an operation that ran from {@code start} to {@code end}: into {@code op} in the
   * measured window, into its warm-up shadow before it (the same code either way).
   */
  void record(Metrics.Op op, long start, long end) {
    Metrics.Op into = op.byPhase[metrics.phase(end)];
    long serviceNanos = Math.max(0L, end - start);
    into.latency.recordValue(serviceNanos + lagNanos);
    if (into.service != null) {
      into.service.recordValue(serviceNanos);
    }
    recordServer(into, start, end);
  }

  /** The server's and the client's part of an operation that ran from {@code start} to {@code end}. */
  private void recordServer(Metrics.Op op, long start, long end) {
    ReplyTiming r = replies;
    if (r == null) {
      return;
    }
    long sent = r.sentNanos();
    long first = r.firstByteNanos();
    if (sent == ReplyTiming.NONE || first == ReplyTiming.NONE || sent - start < 0L || end - first < 0L) {
      return;
    }
    long server = first - sent;
    op.server.recordValue(server);
    op.client.recordValue(Math.max(0L, end - start - server));
  }

  private static final class SessionTimer implements Timer {
    final SessionOps session;
    final Metrics.Op op;
    long startNanos;
    boolean running;

    SessionTimer(SessionOps session, Metrics.Op op) {
      this.session = session;
      this.op = op;
    }

    @Override
    public void stop() {
      if (running) {
        running = false;
        session.record(op, startNanos, session.ticker.nanoTime());
      }
    }
  }
}
