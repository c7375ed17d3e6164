package io.weft.load.internal;

import io.weft.continuations.ConnectWindow;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;

/**
 * Once per interval takes every operation's interval histogram from the run's {@link Metrics},
 * writes it to the HdrHistogram interval log (tagged with the operation's name; service times
 * tagged {@code service:NAME}), adds it to the {@link Results} and prints the live line: elapsed,
 * sessions in an iteration, operations/s, p50/p99 of the interval, errors, and the connects begun
 * in the interval (with a connect window: the users waiting for a place at its end and the places
 * freed without word from the server in it). On a terminal the line is redrawn in place, otherwise
 * one line per interval; nothing when quiet. The connects and the window's figures go into the
 * interval log too ({@code #weft-load interval-connects FROM CONNECTS WAITING FREED}, WAITING -1
 * without a window), so merged shards keep them.
 *
 * <p>Lifecycle: {@link #tick} from one thread (the run's ticker), {@link #finish} once at the end.
 */
public final class Reporter {
  /** Comment lines of the interval log that carry what the histograms do not: errors and the run. */
  public static final String COMMENT = "weft-load ";
  /** The interval log's tag prefix of an operation's server time. */
  public static final String SERVER = "server:";
  /** The interval log's tag prefix of an operation's client's own time. */
  public static final String CLIENT = "client:";
  /** The interval log's comment of an interval's connects and connect window: {@code FROM CONNECTS WAITING FREED}. */
  public static final String INTERVAL_CONNECTS = "interval-connects ";
  /**
   * Printed once (unless quiet), at the first tick after a user first waited the longest backoff:
   * why a run whose iterations keep failing goes slowly.
   */
  public static final String BACKOFF_AT_CAP = "connects or iterations keep failing: users now back off "
      + Durations.format(Plan.BACKOFF_MAX_NANOS) + " before each reconnect, so the run goes slowly"
      + " (see connect backoffs in the summary; -d bounds a closed-model run, -n does not)";

  private final Metrics metrics;
  private final Results results;
  private final PrintStream out;
  private final boolean terminal;
  private final boolean quiet;
  private final HistogramLogWriter log;
  private final long startNanos;
  private final Map<String, Long> lastErrors = new HashMap<>();
  /** Each recorder's last interval histogram, handed back to it at the next tick (see {@link #interval}). */
  private final Map<Recorder, Histogram> spares = new IdentityHashMap<>();
  private long lastTickNanos;
  private long lastErrorTotal;
  private boolean drewLine;
  /** Whether the run has said that its users back off at the longest ({@link #BACKOFF_AT_CAP}). */
  private boolean warnedBackoffAtCap;
  /** The run's connect window's report, or null for a run without a window. */
  private Supplier<ConnectWindow.Report> window;
  private long lastConnects;
  private long lastFreedUnheard;

  /**
   * @param hlog where to write the interval log, or null for none
   */
  public Reporter(Metrics metrics, Results results, PrintStream out, boolean terminal, boolean quiet, File hlog,
      long startNanos) throws FileNotFoundException {
    this.metrics = metrics;
    this.results = results;
    this.out = out;
    this.terminal = terminal;
    this.quiet = quiet;
    this.startNanos = startNanos;
    this.lastTickNanos = startNanos;
    if (hlog != null) {
      log = new HistogramLogWriter(hlog);
      log.outputLogFormatVersion();
      log.outputComment("[Logged with weft-load]");
      log.outputStartTime(results.startEpochMillis);
      log.setBaseTime(results.startEpochMillis);
      log.outputBaseTime(results.startEpochMillis);
      log.outputLegend();
    } else {
      log = null;
    }
  }

  /** The run has a connect window: its figures go into each interval. Before the first tick. */
  public synchronized void window(Supplier<ConnectWindow.Report> report) {
    this.window = report;
  }

  /** Ends the interval at {@code nowNanos}. */
  public synchronized void tick(long nowNanos) {
    double from = (lastTickNanos - startNanos) / 1e9;
    double to = (nowNanos - startNanos) / 1e9;
    lastTickNanos = nowNanos;
    Histogram all = new Histogram(3);
    for (Metrics.Op m : metrics.ops()) {
      Histogram h = interval(m.latency);
      long errors = errorsSinceLast(m);
      Results.Op op = results.op(m.name);
      op.latency.add(h);
      op.intervals.add(new Results.Interval(from, to - from, h, errors));
      all.add(h);
      write(m.name, from, to, h);
      if (errors > 0 && log != null) {
        // The histograms carry no errors: each interval's go beside them, so merged shards keep them.
        log.outputComment(COMMENT + "interval-errors " + m.name + " " + String.format(Locale.ROOT, "%.3f", from) + " " + errors);
      }
      Histogram server = interval(m.server);
      Histogram client = interval(m.client);
      if (server.getTotalCount() > 0 || op.server != null) {
        if (op.server == null) {
          op.server = new Histogram(3);
          op.client = new Histogram(3);
        }
        op.server.add(server);
        op.client.add(client);
        write(SERVER + m.name, from, to, server);
        write(CLIENT + m.name, from, to, client);
      }
      if (m.service != null) {
        Histogram s = interval(m.service);
        if (op.service == null) {
          op.service = new Histogram(3);
        }
        op.service.add(s);
        write("service:" + m.name, from, to, s);
      }
    }
    long errorTotal = metrics.errors();
    long errors = errorTotal - lastErrorTotal;
    lastErrorTotal = errorTotal;
    long connectTotal = metrics.connectsBegun();
    long connects = connectTotal - lastConnects;
    lastConnects = connectTotal;
    long waiting = -1L;
    long freed = 0L;
    long size = -1L;
    if (window != null) {
      ConnectWindow.Report w = window.get();
      waiting = w.waiting();
      size = w.size();
      freed = w.freedUnheard() - lastFreedUnheard;
      lastFreedUnheard = w.freedUnheard();
    }
    if (log != null) {
      log.outputComment(COMMENT + INTERVAL_CONNECTS + String.format(Locale.ROOT, "%.3f", from) + " " + connects + " "
          + waiting + " " + freed + " " + size);
    }
    results.timeline.add(new Results.Interval(from, to - from, all, errors, connects, waiting, freed, size));
    long measuredFrom = metrics.measuredFrom();
    results.seconds = measuredFrom == Long.MIN_VALUE ? 0.0 : Math.max(0.0, (nowNanos - measuredFrom) / 1e9);
    if (!quiet && !warnedBackoffAtCap && metrics.backoffAtCap()) {
      warnedBackoffAtCap = true;
      if (terminal && drewLine) {
        out.println();
        drewLine = false;
      }
      out.println(BACKOFF_AT_CAP);
    }
    if (!quiet) {
      String line = String.format(Locale.ROOT, "%7.1fs  active %6d  %10.0f ops/s  p50 %9s  p99 %9s  errors %d"
          + "  connects %d", to, metrics.busy(), (to - from) <= 0 ? 0.0 : all.getTotalCount() / (to - from),
          all.getTotalCount() == 0 ? "-" : Durations.format(all.getValueAtPercentile(50)),
          all.getTotalCount() == 0 ? "-" : Durations.format(all.getValueAtPercentile(99)), errors, connects);
      if (waiting >= 0) {
        line += String.format(Locale.ROOT, " (window %d, %d wait for a place, %d freed unheard)", size, waiting,
            freed);
      }
      if (terminal) {
        out.print("\r" + line + "\u001b[K");
        drewLine = true;
      } else {
        out.println(line);
      }
      out.flush();
    }
  }

  /**
   * {@code recorder}'s interval, read only within this tick. The histogram it gave last time goes
   * back to it, to be the one the sessions record into next: it is already as wide as their
   * values, where a new one starts narrow and is resized by the sessions, in their path, at every
   * tick (2.4% of the event loops' time at 36,000 requests a second).
   */
  private Histogram interval(Recorder recorder) {
    Histogram h = recorder.getIntervalHistogram(spares.get(recorder));
    spares.put(recorder, h);
    return h;
  }

  private long errorsSinceLast(Metrics.Op m) {
    long now = 0;
    for (LongAdder a : m.errors.values()) {
      now += a.sum();
    }
    Long before = lastErrors.put(m.name, now);
    return now - (before == null ? 0 : before);
  }

  private void write(String tag, double from, double to, Histogram h) {
    if (log == null) {
      return;
    }
    h.setTag(tag);
    h.setStartTimeStamp(results.startEpochMillis + (long) (from * 1000));
    h.setEndTimeStamp(results.startEpochMillis + (long) (to * 1000));
    log.outputIntervalHistogram(h);
  }

  /**
   * The last interval; the errors by type into the results and the log; in the closed model the
   * corrected figures ({@link Results#correct}); and the log closed.
   */
  public synchronized void finish(long nowNanos, long expectedIntervalNanos) {
    tick(nowNanos);
    if (!results.open()) {
      results.correct(expectedIntervalNanos);
    }
    if (terminal && drewLine && !quiet) {
      out.println();
    }
    for (Metrics.Op m : metrics.ops()) {
      Results.Op op = results.op(m.name);
      for (Map.Entry<String, LongAdder> e : m.errors.entrySet()) {
        long n = e.getValue().sum();
        op.errors.merge(e.getKey(), n, Long::sum);
        if (log != null) {
          log.outputComment(COMMENT + "errors " + m.name + " " + e.getKey() + " " + n);
        }
      }
    }
    if (log != null && results.window != null) {
      // So that merged shards can say what their windows did (LogMerge).
      log.outputComment(COMMENT + results.window.toLog(results.windowConfig));
    }
    if (log != null) {
      log.outputComment(COMMENT + "run model=" + results.model + " mode=" + results.mode
          + " scenario=" + results.scenario + " seconds=" + results.seconds + " users=" + results.users
          + " expectedIntervalNanos=" + results.expectedIntervalNanos);
      log.close();
    }
  }
}
