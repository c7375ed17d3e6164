package io.weft.load.internal;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.ConnectWindow;
import io.weft.continuations.ContinuationClassLoader;
import io.weft.continuations.InstrumentationReport;
import io.weft.continuations.Mode;
import io.weft.continuations.NotInstrumentableException;
import io.weft.continuations.NotInstrumentedError;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.internal.VirtualUser;
import io.weft.transport.Connector;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.netty.SuspendingNettyConnector;
import io.weft.transport.mina.MinaConnector;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One load run from start to end: the connector for the mode, the {@link SessionRunner} with
 * one {@link VirtualUser} per session, the open model's dispatcher, the reporter ticking once a
 * second, then the summary, the interval log, the JSON and HTML reports and the thresholds.
 */
public final class LoadRun {
  /**
   * Exit codes: 0 every threshold held and at least one operation succeeded; 1 a threshold
   * failed; 3 the run failed (could not be made, or no operation succeeded). 2, a usage error,
   * is the command line's.
   */
  public static final int OK = 0;
  public static final int THRESHOLD_FAILED = 1;
  public static final int FAILED = 3;

  /** Files written into the output directory. */
  public static final String HLOG = "intervals.hlog";
  public static final String JSON = "summary.json";
  public static final String HTML = "report.html";

  private LoadRun() {}

  /** Runs {@code spec}, prints to {@code out}, returns the exit code. */
  public static int execute(LoadSpec spec, PrintStream out) throws IOException, InterruptedException {
    Results results = run(spec, out);
    int exit = report(results, spec.thresholds, spec.outDir, out);
    if (results.notInstrumented != null) {
      // A session met code that cannot suspend: the figures are not those of the scenario.
      out.println("weft-load: the scenario cannot run as continuations: " + results.notInstrumented);
      return FAILED;
    }
    return failedIfNothingSucceeded(results, exit, out);
  }

  /** {@link #FAILED}, said on {@code out}, if no operation of {@code results} succeeded; else {@code exit}. */
  public static int failedIfNothingSucceeded(Results results, int exit, PrintStream out) {
    if (results.succeeded() == 0L) {
      out.println("weft-load: the run failed: no operation succeeded"
          + (results.totalErrors() > 0 ? " (" + results.totalErrors() + " errors)" : ""));
      return FAILED;
    }
    return exit;
  }

  /** The run alone: its results, the interval log written if an output directory is given. */
  public static Results run(LoadSpec spec, PrintStream out) throws IOException, InterruptedException {
    boolean open = spec.stages != null;
    Ticker clock = spec.ticker;
    Metrics metrics = new Metrics(open, spec.warmupNanos, clock);
    Results results = new Results();
    results.model = open ? "open" : "closed";
    results.mode = spec.mode.toString();
    results.scenario = spec.scenarioName != null ? spec.scenarioName : spec.scenarioClass;
    results.startEpochMillis = System.currentTimeMillis();
    int sessions = LoadSpec.share(open ? spec.maxSessions : spec.users, spec.shard, spec.shards);
    results.users = sessions;
    if (open) {
      results.info.put("stages", spec.stages.toString());
      results.info.put("max sessions", Integer.toString(sessions));
    } else {
      results.info.put("users", Integer.toString(sessions));
      if (spec.iterations > 0) {
        results.info.put("iterations per user", Long.toString(spec.iterations));
      } else {
        results.info.put("duration", Durations.format(spec.durationNanos));
      }
      if (spec.thinkNanos > 0) {
        results.info.put("think", Durations.format(spec.thinkNanos));
      }
    }
    results.info.put("connect pacing", spec.pacing().toString());
    results.info.put("connect window", spec.window().toString());
    if (spec.warmupNanos > 0) {
      results.info.put("warm-up", Durations.format(spec.warmupNanos));
    }
    if (spec.shards > 1) {
      results.info.put("shard", spec.shard + "/" + spec.shards);
    }
    if (spec.archiveState != null) {
      results.info.put("class-data archive", spec.archiveState);
    }
    boolean continuations = spec.mode.kind() == Mode.Kind.CONTINUATIONS;
    Arrivals arrivals = open ? new Arrivals(spec.stages, spec.shard, spec.shards, clock) : null;
    Timeout timeout = spec.timeoutNanos > 0 ? Timeout.of(spec.timeoutNanos, TimeUnit.NANOSECONDS) : Timeout.NONE;
    File hlog = null;
    if (spec.outDir != null) {
      if (!spec.outDir.isDirectory() && !spec.outDir.mkdirs()) {
        throw new IOException("cannot make the output directory " + spec.outDir);
      }
      hlog = new File(spec.outDir, HLOG);
    }
    // One clock for the whole run: the metrics', the connectors', the runtime's (its timer times the users' waits).
    io.weft.transport.spi.Ticker runClock = clock.transportClock();
    try (Connector connector = connector(continuations ? spec.mode.workers() : 0, spec.vmPipe, runClock)) {
      Plan plan = new Plan(spec.scenarioClass, spec.params, connector, spec.addresses, timeout, metrics, arrivals,
          open ? 0L : spec.iterations, open ? 0L : spec.thinkNanos, spec.pacing(), spec.window());
      // The users connect for themselves (paced, timed, retried): the runner opens nothing.
      SessionRunner.Builder builder = SessionRunner.builder().mode(spec.mode).connector(new SelfConnecting(runClock))
          .allowBlockingConnector(true).connectPacing(ConnectPacing.NONE).connectWindow(0)
          .addresses(spec.addresses).timeout(timeout);
      if (continuations) {
        if (spec.alreadyRewritten) {
          builder.alreadyRewritten();
        } else {
          Set<String> packages = new LinkedHashSet<>();
          packages.add(VirtualUser.class.getPackageName().replaceFirst("\\.internal$", ""));
          packages.add("io.weft.protocols");
          String pkg = packageOf(spec.scenarioClass);
          if (!pkg.isEmpty() && !pkg.startsWith(packages.iterator().next())) {
            packages.add(pkg);
          }
          packages.addAll(spec.instrument);
          builder.instrument(packages.toArray(new String[0]));
        }
      }
      try (SessionRunner runner = builder.build()) {
        refuseUnsuspendable(runner.classLoader(), spec.scenarioClass);
        long start = clock.nanoTime();
        if (!open && spec.iterations <= 0) {
          plan.duration(spec.durationNanos);
        }
        Reporter reporter = new Reporter(metrics, results, out, spec.terminal, spec.quiet, hlog, start);
        if (plan.windowed()) {
          reporter.window(plan::windowReport);
        }
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread t = new Thread(r, "weft-load-reporter");
          t.setDaemon(true);
          return t;
        });
        if (open) {
          arrivals.startWhen(sessions);
        }
        ticker.scheduleAtFixedRate(() -> {
          if (arrivals != null) {
            // Sessions that cannot connect never take a slot: start without them.
            arrivals.startIfStalled();
          }
          reporter.tick(clock.nanoTime());
        }, 1, 1, TimeUnit.SECONDS);
        RunResult<Long> result;
        try {
          result = runner.run(VirtualUser.class, sessions, plan);
        } finally {
          if (arrivals != null) {
            arrivals.stop();
          }
          ticker.shutdownNow();
          ticker.awaitTermination(10, TimeUnit.SECONDS);
        }
        OpRecorder sessionErrors = metrics.newSession();
        for (Outcome<Long> o : result.failures()) {
          if (o.failure() != null) {
            sessionErrors.error("session", o.failure());
            if (o.failure() instanceof NotInstrumentedError && results.notInstrumented == null) {
              results.notInstrumented = o.failure().getMessage();
            }
          }
        }
        if (!result.failures().isEmpty() && !spec.quiet) {
          Throwable first = result.failures().get(0).failure();
          out.println(result.failures().size() + " of " + sessions + " sessions failed; the first: " + first);
        }
        results.cleanIterations = metrics.cleanIterations();
        if (metrics.backoffs() > 0) {
          results.info.put("connect backoffs", metrics.backoffs() + " (" + Durations.format(Plan.BACKOFF_MIN_NANOS)
              + " doubling to " + Durations.format(Plan.BACKOFF_MAX_NANOS) + "), "
              + Durations.format(metrics.backoffNanos()) + " in all");
        }
        if (spec.pacing() != ConnectPacing.NONE) {
          results.info.put("paced connects", metrics.pacedConnects() + " (first connects and reconnects after a failure), "
              + Durations.format(metrics.pacingNanos()) + " waited in all");
        }
        ConnectWindow.Report window = plan.windowReport();
        if (window != null) {
          results.window = WindowFigures.of(window);
          results.windowConfig = spec.window().toString();
          results.info.put("connect window",
              windowSummary(results.windowConfig + forEachServer(results.window.addresses), results.window, true));
          if (window.stalled() && !spec.quiet) {
            out.println("the connect window held connects back for long (" + window + "): a protocol whose first reply"
                + " comes late runs better with --connect-window 0");
          }
        }
        reporter.finish(clock.nanoTime(), spec.expectedIntervalNanos);
      }
    }
    return results;
  }

  /**
   * The summary's {@code connect window} line (console, summary.json's info, the HTML report): the
   * window as configured, what it held back, and, for one whose size can change, how its size went
   * ({@code "; 128 at first, 160 at the largest, 32 at the smallest, 128 at the end, halved 2
   * times, grew back 2 times"}; "grew back" only for a window that halves below its first size).
   * Over several servers (one window each) the largest window's size at the end and the smallest
   * size any took, the halvings and regrowths of all; so too over merged shards ({@link LogMerge}).
   */
  static String windowSummary(ConnectWindow window, ConnectWindow.Report r) {
    WindowFigures f = WindowFigures.of(r);
    return windowSummary(window + forEachServer(f.addresses), f, true);
  }

  /** {@code " for each of N servers"} of a window per server over {@code addresses} servers; nothing for one. */
  static String forEachServer(int addresses) {
    return addresses > 1 ? " for each of " + addresses + " servers" : "";
  }

  /**
   * {@link #windowSummary(ConnectWindow, ConnectWindow.Report)} with {@code header} (the
   * configuration, and for merged shards ({@link LogMerge}) in how many shards or each shard's own)
   * before the figures {@code r} (merged shards: a window each, their counts summed, their sizes as
   * over several servers). {@code oneConfig}: whether every window had the same configuration, so
   * that "at first" is one size.
   */
  static String windowSummary(String header, WindowFigures r, boolean oneConfig) {
    StringBuilder line = new StringBuilder(header);
    line.append("; ").append(r.waited).append(" connects waited for a place, full for ")
        .append(Durations.format(r.longestFullNanos)).append(" at most, ").append(r.freedUnheard)
        .append(" places freed without word from the server, ").append(r.connectsFailed).append(" connects failed");
    if (r.sizeChanges) {
      line.append("; ");
      if (oneConfig) {
        line.append(r.sessions).append(" at first, ");
      }
      line.append(r.largest).append(" at the largest, ").append(r.smallest).append(" at the smallest, ")
          .append(r.size).append(" at the end, halved ").append(times(r.halvings));
      if (r.halves) {
        line.append(", grew back ").append(times(r.regrowths));
      }
    }
    return line.toString();
  }

  private static String times(long n) {
    return n + (n == 1 ? " time" : " times");
  }

  /**
   * Prints the summary, writes the JSON and HTML reports into {@code outDir} (if given),
   * evaluates the thresholds and returns the exit code.
   */
  public static int report(Results results, List<Thresholds.Threshold> thresholds, File outDir, PrintStream out)
      throws IOException {
    List<Thresholds.Verdict> verdicts = Thresholds.evaluate(thresholds, results);
    SummaryTable.print(results, out);
    if (outDir != null) {
      if (!outDir.isDirectory() && !outDir.mkdirs()) {
        throw new IOException("cannot make the output directory " + outDir);
      }
      JsonReport.write(results, verdicts, new File(outDir, JSON));
      HtmlReport.write(results, verdicts, new File(outDir, HTML));
      out.println("reports: " + new File(outDir, JSON) + ", " + new File(outDir, HTML)
          + (new File(outDir, HLOG).exists() ? ", " + new File(outDir, HLOG) : ""));
    }
    List<Thresholds.Verdict> failed = new ArrayList<>();
    for (Thresholds.Verdict v : verdicts) {
      out.println("threshold " + v);
      if (!v.passed) {
        failed.add(v);
      }
    }
    if (!failed.isEmpty()) {
      out.println(failed.size() + " of " + verdicts.size() + " thresholds FAILED");
      return THRESHOLD_FAILED;
    }
    return OK;
  }

  /**
   * The runner checks the call chains of its task, the virtual user, which makes the scenario by
   * name and reaches it only through the {@code Scenario} interface; so the scenario's own chains,
   * and any problem the loader found in its package, are refused here, before any session starts.
   */
  private static void refuseUnsuspendable(ContinuationClassLoader loader, String scenarioClass) {
    if (loader == null) {
      return;
    }
    if (!loader.isInstrumented(scenarioClass)) {
      throw new IllegalArgumentException("scenario class " + scenarioClass + " is not under the instrumented packages "
          + loader.packages() + " (is it on the class path?)");
    }
    // The loader's walk from the task cannot see which scenario the virtual user makes (by
    // name, through reflection): take what it found in the scenario's own package as well.
    Set<InstrumentationReport.Problem> problems = new LinkedHashSet<>(loader.problemsFor(scenarioClass));
    String pkg = packageOf(scenarioClass) + ".";
    for (InstrumentationReport.Problem p : loader.report().problems()) {
      if (p.className().equals(scenarioClass) || p.className().startsWith(pkg)) {
        problems.add(p);
      }
    }
    if (!problems.isEmpty()) {
      StringBuilder message = new StringBuilder(scenarioClass + " cannot run as continuations:");
      for (InstrumentationReport.Problem p : problems) {
        message.append("\n  ").append(p);
      }
      message.append("\nFix those, or run this scenario with --mode threads or --mode virtual-threads.");
      throw new NotInstrumentableException(message.toString(), List.copyOf(problems));
    }
  }

  /**
   * Continuations over TCP run on transport-netty, whose event-loop count is the one knob here
   * (MINA ran ahead of it at 100 and 1,000 sessions on one processor in the peers runs of
   * 2026-11-27, Netty at 10,000 on long-lived connections); the in-VM pipe is MINA's. Its event
   * loops are where the users run (each is resumed on its connection's loop), so
   * {@code continuations:K} gets K of them: with one, K had no effect over TCP, and that one
   * thread made every connect, write and close system call of the run.
   *
   * <p>Each is built on the run's clock, so that its connect and read timeouts are measured on it
   * (and, in continuation mode, so that a user's connect passes the runtime's check that its
   * connector reads the run's clock). {@link SocketConnector} takes none: its blocking socket
   * calls time out in real time.
   *
   * @param continuations the mode's workers in continuation mode, 0 in the other modes
   * @param clock the run's clock ({@link Ticker#transportClock()})
   */
  private static Connector connector(int continuations, boolean vmPipe, io.weft.transport.spi.Ticker clock) {
    if (continuations > 0) {
      return vmPipe ? SuspendingMinaConnector.builder().ticker(clock).vmPipe()
          : SuspendingNettyConnector.builder().eventLoopThreads(continuations).ticker(clock).tcp();
    }
    return vmPipe ? MinaConnector.builder().ticker(clock).vmPipe() : new SocketConnector();
  }

  private static String packageOf(String className) {
    int dot = className.lastIndexOf('.');
    return dot < 0 ? "" : className.substring(0, dot);
  }
}
