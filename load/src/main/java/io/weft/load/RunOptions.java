package io.weft.load;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Mode;
import io.weft.load.internal.Durations;
import io.weft.load.internal.LoadSpec;
import io.weft.load.internal.Stages;
import io.weft.load.internal.Thresholds;
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

  @Option(names = {"-u", "--users"}, defaultValue = "10",
      description = "Closed model: virtual users (sessions). Default: ${DEFAULT-VALUE}.")
  int users;

  @Option(names = {"-n", "--iterations"}, defaultValue = "0",
      description = "Closed model: iterations per user (0: run for --duration).")
  long iterations;

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

  @Option(names = "--max-sessions", defaultValue = "1000",
      description = "Open model: sessions (connections), the cap on iterations in flight. Default: ${DEFAULT-VALUE}.")
  int maxSessions;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10s",
      description = "Per-operation I/O timeout (0: none). Default: ${DEFAULT-VALUE}.")
  String timeout;

  @Option(names = "--connect-rate", paramLabel = "PER_SECOND",
      description = "Connects a second, each user's first and every reconnect (0: all at once). Default: "
          + ConnectPacing.DEFAULT_PER_SECOND + ".")
  Double connectRate;

  @Option(names = "--connect-burst", paramLabel = "N",
      description = "Connects at once before --connect-rate applies. Default: " + ConnectPacing.DEFAULT_BURST + ".")
  Integer connectBurst;

  @Option(names = "--shard", paramLabel = "I/N", description = "Run shard I of N: the users or the arrivals split N ways.")
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
    if (users < 1) {
      throw new IllegalArgumentException("--users < 1: " + users);
    }
    s.users = users;
    if (maxSessions < 1) {
      throw new IllegalArgumentException("--max-sessions < 1: " + maxSessions);
    }
    s.maxSessions = maxSessions;
    if (!stages.isEmpty() && rate != null) {
      throw new IllegalArgumentException("--rate and --stage: choose one");
    }
    if (!stages.isEmpty()) {
      s.stages = Stages.parse(stages);
    } else if (rate != null) {
      if (rate <= 0) {
        throw new IllegalArgumentException("--rate <= 0: " + rate);
      }
      s.stages = Stages.constant(rate, Durations.parseNanos(duration == null ? "10s" : duration) / 1e9);
    }
    if (s.stages != null && (iterations > 0 || think != null)) {
      throw new IllegalArgumentException("--iterations and --think are for the closed model, not with --rate or --stage");
    }
    if (iterations < 0) {
      throw new IllegalArgumentException("--iterations < 0: " + iterations);
    }
    if (iterations > 0 && duration != null) {
      throw new IllegalArgumentException("--iterations and --duration: choose one");
    }
    s.iterations = iterations;
    s.durationNanos = Durations.parseNanos(duration == null ? "10s" : duration);
    s.thinkNanos = think == null ? 0 : Durations.parseNanos(think);
    s.warmupNanos = warmup == null ? 0 : Durations.parseNanos(warmup);
    s.expectedIntervalNanos = expectedInterval == null ? -1 : Durations.parseNanos(expectedInterval);
    if (connectRate != null || connectBurst != null) {
      double r = connectRate != null ? connectRate : ConnectPacing.DEFAULT_PER_SECOND;
      int b = connectBurst != null ? connectBurst : ConnectPacing.DEFAULT_BURST;
      if (r < 0 || b < 1) {
        throw new IllegalArgumentException("--connect-rate < 0 or --connect-burst < 1: " + r + ", " + b);
      }
      s.connectPacing = r == 0 ? ConnectPacing.NONE : ConnectPacing.perSecond(r, b);
    }
    if (shard != null) {
      s.shard(shard);
    }
    s.outDir = out;
    s.quiet = quiet;
    s.terminal = System.console() != null;
    for (String t : thresholds) {
      s.thresholds.add(Thresholds.parse(t));
    }
    return s;
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
