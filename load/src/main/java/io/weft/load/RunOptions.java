package io.weft.load;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.ConnectWindow;
import io.weft.continuations.Mode;
import io.weft.load.internal.Durations;
import io.weft.load.internal.LoadSpec;
import io.weft.load.internal.Stages;
import io.weft.load.internal.Thresholds;
import io.weft.load.scenario.Workload;
import java.io.Console;
import java.io.File;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/** The options every scenario subcommand takes: where, how, the workload model, the output. */
final class RunOptions {
  @Option(names = {"-t", "--target"}, paramLabel = "HOST:PORT",
      description = "Server address; repeat to spread sessions round robin.")
  List<String> targets = new ArrayList<>();

  @Option(names = "--mode", paramLabel = "MODE", defaultValue = "continuations:1",
      description = "sync | threads | continuations:K | virtual-threads (JDK 21+). Default: ${DEFAULT-VALUE}.")
  String mode;

  @Option(names = {"-u", "--users"},
      description = "Closed model: virtual users (sessions). Default: the scenario's workload, else 10.")
  Integer users;

  @Option(names = {"-n", "--iterations"},
      description = "Closed model: iterations per user (0: run for --duration).")
  Long iterations;

  @Option(names = {"-d", "--duration"}, paramLabel = "DURATION",
      description = "Closed model: how long users start iterations (default 10s); open model with --rate: how long.")
  String duration;

  @Option(names = "--think", paramLabel = "DURATION", description = "Closed model: pause between a user's iterations.")
  String think;

  @Option(names = "--warmup", paramLabel = "DURATION",
      description = "Record nothing for this long after the first iteration begins (JIT, pools); then run --duration.")
  String warmup;

  @Option(names = "--expected-interval", paramLabel = "DURATION",
      description = "Closed model: the expected interval per user for the corrected figures (default: each operation's own mean, users x run / count).")
  String expectedInterval;

  @Option(names = {"-r", "--rate"}, description = "Open model: iterations per second, constant for --duration.")
  Double rate;

  @Option(names = "--stage", paramLabel = "DURATION:RATE[->RATE]",
      description = "Open model: a stage of the arrival rate, e.g. 30s:0->5000, 2m:5000. Repeat in order.")
  List<String> stages = new ArrayList<>();

  @Option(names = "--max-sessions",
      description = "Open model: sessions (connections), the cap on iterations in flight. Default: the scenario's workload, else 1000.")
  Integer maxSessions;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10s",
      description = "Per-operation I/O timeout (0: none). Default: ${DEFAULT-VALUE}.")
  String timeout;

  @Option(names = "--connect-rate", paramLabel = "PER_SECOND",
      description = "Connects a second, each user's first and every reconnect after a failure (0: all at once, and no"
          + " connect window unless --connect-window is given)."
          + " Default: none where the connect window bounds what the server's listen queue holds"
          + " (the closed model), else " + ConnectPacing.DEFAULT_PER_SECOND + ".")
  Double connectRate;

  @Option(names = "--connect-burst", paramLabel = "N",
      description = "Connects at once before --connect-rate applies (given alone, the rate is "
          + ConnectPacing.DEFAULT_PER_SECOND + "). Default: " + ConnectPacing.DEFAULT_BURST + ".")
  Integer connectBurst;

  @Option(names = "--connect-window", paramLabel = "N",
      description = "Users connected and not yet heard from at once; the others wait before they connect, and a"
          + " place held 1 s (--connect-window-hold) from its connect without word from the server is freed (0: no window). Default: "
          + ConnectWindow.DEFAULT_SESSIONS + " in the closed model, growing while that makes places come back faster"
          + " (to " + ConnectWindow.DEFAULT_MAX_SESSIONS + "; for redis " + ConnectWindow.DEEP_BACKLOG_SESSIONS
          + " growing to " + ConnectWindow.DEEP_BACKLOG_MAX_SESSIONS
          + ": --connect-window-max); none in the open model (its users connect, then"
          + " wait for their first arrival) or with --connect-rate 0. A window given here stays its size.")
  Integer connectWindow;

  @Option(names = "--connect-window-max", paramLabel = "N",
      description = "How far the connect window may grow; below the server's listen backlog (Java's default is 50:"
          + " at most " + ConnectWindow.DEFAULT_MAX_SESSIONS + " against it). Default: "
          + ConnectWindow.DEFAULT_MAX_SESSIONS + ", " + ConnectWindow.DEEP_BACKLOG_MAX_SESSIONS
          + " for redis (an http run against nginx's backlog of 511 may set 256: 32 growing to 256); for redis, at"
          + " or below " + ConnectWindow.DEEP_BACKLOG_SESSIONS + " the window starts at N and still halves to "
          + ConnectWindow.DEFAULT_SESSIONS + "; at or below " + ConnectWindow.DEFAULT_SESSIONS
          + " it is fixed at N; with --connect-window, its size"
          + " (no growth). Each --shard has its own window: against one server give each (backlog / 2) / shards.")
  Integer connectWindowMax;

  @Option(names = "--connect-window-hold", paramLabel = "DURATION",
      description = "How long a user holds its place in the connect window, from its connect, without word from the"
          + " server, before the place is freed for the next user (the user goes on). Default: 1s.")
  String connectWindowHold;

  @Option(names = "--shard", paramLabel = "I/N",
      description = "Run shard I of N: the users or the arrivals split N ways."
      + " Each shard has its own connect window: against one server, N shards put N times it into the listen queue"
      + " (give each --connect-window-max (backlog / 2) / N).")
  String shard;

  @Option(names = {"-o", "--out"}, paramLabel = "DIR", defaultValue = "weft-load-report",
      description = "Where the interval log and the JSON and HTML reports go. Default: ${DEFAULT-VALUE}.")
  File out;

  @Option(names = {"-q", "--quiet"}, description = "No live output.")
  boolean quiet;

  @Option(names = "--threshold", paramLabel = "[OP:]METRIC<VALUE",
      description = "Fail (exit 1) unless this holds, e.g. 'GET:p99<20ms', 'errors<0.1%%'. Repeatable.")
  List<String> thresholds = new ArrayList<>();

  @Option(names = "--instrument", paramLabel = "PACKAGE",
      description = "continuations: more packages to rewrite (the scenario's own is rewritten anyway).")
  List<String> instrument = new ArrayList<>();

  @Option(names = "--already-rewritten",
      description = "continuations: classes were rewritten ahead of time (Rewrite tool or -javaagent).")
  boolean alreadyRewritten;

  /** The spec these options say, for a scenario with its parameters already set. */
  LoadSpec spec(String scenarioClass, String scenarioName, boolean needTarget) {
    return spec(scenarioClass, scenarioName, needTarget, null);
  }

  /**
   * The spec these options say over the workload the scenario declares ({@code declared}, or
   * null): each flag given overrides its setting; a flag of the other model replaces the
   * declared model; any {@code --threshold} replaces the declared thresholds.
   */
  LoadSpec spec(String scenarioClass, String scenarioName, boolean needTarget, Workload declared) {
    LoadSpec s = new LoadSpec();
    s.scenarioClass = scenarioClass;
    s.scenarioName = scenarioName;
    s.mode = parseMode(mode);
    for (String t : targets) {
      s.addresses.add(parseAddress(t));
    }
    if (needTarget && s.addresses.isEmpty()) {
      throw new IllegalArgumentException("no --target HOST:PORT");
    }
    s.timeoutNanos = Durations.parseNanos(timeout);
    s.instrument.addAll(instrument);
    s.alreadyRewritten = alreadyRewritten;
    if (!stages.isEmpty() && rate != null) {
      throw new IllegalArgumentException("--rate and --stage: choose one");
    }
    boolean openFlags = !stages.isEmpty() || rate != null;
    boolean closedFlags = users != null || iterations != null || think != null;
    if (openFlags && (iterations != null || think != null)) {
      throw new IllegalArgumentException("--iterations and --think are for the closed model, not with --rate or --stage");
    }
    if (iterations != null && iterations > 0 && duration != null) {
      throw new IllegalArgumentException("--iterations and --duration: choose one");
    }
    String model = openFlags ? Workload.OPEN : closedFlags ? Workload.CLOSED
        : declared != null ? declared.model() : Workload.CLOSED;
    // The declared profile counts only for its own model; its warm-up, pacing and thresholds always.
    Workload code = declared != null && declared.model().equals(model) ? declared : null;

    int u = users != null ? users : code != null && code.users() != null ? code.users() : 10;
    if (u < 1) {
      throw new IllegalArgumentException("--users < 1: " + u);
    }
    s.users = u;
    int m = maxSessions != null ? maxSessions : code != null && code.maxSessions() != null ? code.maxSessions() : 1000;
    if (m < 1) {
      throw new IllegalArgumentException("--max-sessions < 1: " + m);
    }
    s.maxSessions = m;
    long n = iterations != null ? iterations
        : code != null && code.iterations() != null && duration == null ? code.iterations() : 0L;
    if (n < 0) {
      throw new IllegalArgumentException("--iterations < 0: " + n);
    }
    s.iterations = n;
    long durationNanos = duration != null ? Durations.parseNanos(duration)
        : code != null && code.duration() != null && iterations == null ? code.duration().toNanos()
        : 10_000_000_000L;
    s.durationNanos = durationNanos;
    s.thinkNanos = think != null ? Durations.parseNanos(think)
        : code != null && code.think() != null ? code.think().toNanos() : 0L;
    if (!stages.isEmpty()) {
      s.stages = Stages.parse(stages);
    } else if (rate != null) {
      if (rate <= 0) {
        throw new IllegalArgumentException("--rate <= 0: " + rate);
      }
      s.stages = Stages.constant(rate, durationNanos / 1e9);
    } else if (Workload.OPEN.equals(model)) {
      List<String> declaredStages = code.stages();
      if (declaredStages.isEmpty()) {
        throw new IllegalArgumentException(scenarioClass + " declares the open model without a rate or stages");
      }
      if (declaredStages.get(0).startsWith("rate:")) {
        s.stages = Stages.constant(Double.parseDouble(declaredStages.get(0).substring("rate:".length())), durationNanos / 1e9);
      } else {
        s.stages = Stages.parse(declaredStages);
      }
    }
    s.warmupNanos = warmup != null ? Durations.parseNanos(warmup)
        : declared != null && declared.warmup() != null ? declared.warmup().toNanos() : 0L;
    s.expectedIntervalNanos = expectedInterval == null ? -1 : Durations.parseNanos(expectedInterval);
    Double r = connectRate != null ? connectRate : declared != null ? declared.connectRate() : null;
    Integer b = connectBurst != null ? connectBurst : declared != null ? declared.connectBurst() : null;
    if (r != null || b != null) {
      double pr = r != null ? r : ConnectPacing.DEFAULT_PER_SECOND;
      int pb = b != null ? b : ConnectPacing.DEFAULT_BURST;
      if (pr < 0 || pb < 1) {
        throw new IllegalArgumentException("--connect-rate < 0 or --connect-burst < 1: " + pr + ", " + pb);
      }
      s.connectPacing = pr == 0 ? ConnectPacing.NONE : ConnectPacing.perSecond(pr, pb);
    }
    Integer cw = connectWindow != null ? connectWindow : declared != null ? declared.connectWindow() : null;
    if (cw != null) {
      if (cw < 0) {
        throw new IllegalArgumentException("--connect-window < 0: " + cw);
      }
      s.connectWindow = cw == 0 ? ConnectWindow.NONE
          : ConnectWindow.of(cw, java.time.Duration.ofNanos(ConnectWindow.DEFAULT_HOLD_NANOS));
    }
    if (connectWindowMax != null) {
      if (connectWindowMax < 1) {
        throw new IllegalArgumentException("--connect-window-max < 1: " + connectWindowMax);
      }
      if (s.connectWindow != null && s.connectWindow.limits() && connectWindowMax < s.connectWindow.sessions()) {
        throw new IllegalArgumentException("--connect-window-max < --connect-window: " + connectWindowMax + " < "
            + s.connectWindow.sessions());
      }
      s.connectWindowMax = connectWindowMax;
    }
    if (connectWindowHold != null) {
      long hold = Durations.parseNanos(connectWindowHold);
      if (hold <= 0L) {
        throw new IllegalArgumentException("--connect-window-hold <= 0: " + connectWindowHold);
      }
      s.connectWindowHoldNanos = hold;
    } else if (declared != null && declared.connectWindowHold() != null) {
      s.connectWindowHoldNanos = declared.connectWindowHold().toNanos();
    }
    if (shard != null) {
      s.shard(shard);
    }
    s.outDir = out;
    s.quiet = quiet;
    s.terminal = terminal(System.console());
    String archive = System.getenv(WeftLoad.ARCHIVE_STATE);
    s.archiveState = archive == null || archive.isEmpty() ? null : archive;
    List<String> th = !thresholds.isEmpty() || declared == null ? thresholds : declared.thresholds();
    for (String t : th) {
      s.thresholds.add(Thresholds.parse(t));
    }
    return s;
  }

  /**
   * Whether the run's standard output is a terminal, where its status line is redrawn in place: the
   * JVM has a console, and on JDK 22 and later, whose {@code System.console()} is there even when
   * the output goes to a file or a pipe, the console says it is a terminal ({@code isTerminal}).
   */
  static boolean terminal(Console console) {
    if (console == null) {
      return false;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (NoSuchMethodException e) {
      return true; // JDK 17-21: a console only when standard input and output are a terminal.
    } catch (ReflectiveOperationException | RuntimeException e) {
      return false;
    }
  }

  static Mode parseMode(String text) {
    String m = text.trim().toLowerCase(Locale.ROOT).replace('_', '-');
    switch (m) {
      case "sync":
        return Mode.SYNC;
      case "threads":
        return Mode.THREADS;
      case "virtual-threads":
        return Mode.VIRTUAL_THREADS;
      case "continuations":
        return Mode.continuations(1);
      default:
        if (m.startsWith("continuations:")) {
          try {
            return Mode.continuations(Integer.parseInt(m.substring("continuations:".length())));
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad --mode " + text + ": continuations:K takes a number of workers", e);
          }
        }
        throw new IllegalArgumentException("bad --mode " + text + ": sync, threads, continuations:K or virtual-threads");
    }
  }

  static InetSocketAddress parseAddress(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("bad --target " + text + ": expected HOST:PORT");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      return new InetSocketAddress(host, Integer.parseInt(text.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad --target " + text + ": the port is not a number", e);
    }
  }
}
