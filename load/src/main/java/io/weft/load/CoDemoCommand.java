package io.weft.load;

import io.weft.continuations.Mode;
import io.weft.load.internal.Durations;
import io.weft.load.internal.FreezingEchoServer;
import io.weft.load.internal.LoadRun;
import io.weft.load.internal.LoadSpec;
import io.weft.load.internal.Results;
import io.weft.load.internal.Stages;
import io.weft.load.scenario.builtin.LineScenario;
import java.io.File;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code weft-load example co-demo}: coordinated omission shown with a real server that freezes once.
 * The same line scenario runs twice against a loopback echo server that holds every reply for
 * the freeze when it receives the line a quarter of the way into the run: in the open model at
 * a fixed rate, then as a naive closed loop. Both summaries are printed, then their tails side
 * by side against the freeze.
 */
@Command(name = "co-demo", mixinStandardHelpOptions = true,
    description = "Coordinated omission, demonstrated: an open-model run and a naive closed loop against a server that freezes once.")
final class CoDemoCommand implements Callable<Integer> {
  @ParentCommand ExampleCommand parent;

  @Option(names = "--freeze", defaultValue = "500ms", description = "How long the server freezes. Default: ${DEFAULT-VALUE}.")
  String freeze;

  @Option(names = {"-r", "--rate"}, defaultValue = "500", description = "Open model: iterations per second. Default: ${DEFAULT-VALUE}.")
  double rate;

  @Option(names = {"-d", "--duration"}, defaultValue = "2s", description = "Open model: how long. Default: ${DEFAULT-VALUE}.")
  String duration;

  @Option(names = "--max-sessions", defaultValue = "5", description = "Open model: sessions. Default: ${DEFAULT-VALUE}.")
  int maxSessions;

  @Option(names = {"-u", "--users"}, defaultValue = "4", description = "Closed loop: users. Default: ${DEFAULT-VALUE}.")
  int users;

  @Option(names = {"-n", "--iterations"}, defaultValue = "1000", description = "Closed loop: iterations per user. Default: ${DEFAULT-VALUE}.")
  int iterations;

  @Option(names = "--mode", defaultValue = "continuations:1", description = "Default: ${DEFAULT-VALUE}.")
  String mode;

  @Option(names = {"-o", "--out"}, paramLabel = "DIR", defaultValue = "weft-load-co-demo",
      description = "Reports go to DIR/open and DIR/closed. Default: ${DEFAULT-VALUE}.")
  File out;

  @Override
  public Integer call() throws Exception {
    PrintStream ps = parent.out();
    long freezeNanos = Durations.parseNanos(freeze);
    Mode m = RunOptions.parseMode(mode);
    Stages stages = Stages.constant(rate, Durations.parseNanos(duration) / 1e9);

    ps.println("== open model: " + stages + " iterations/s, " + maxSessions + " sessions; the server freezes "
        + Durations.format(freezeNanos) + " once, a quarter of the way in");
    Results open;
    try (FreezingEchoServer server = new FreezingEchoServer(Math.max(1, stages.arrivals() / 4), freezeNanos / 1_000_000L)) {
      LoadSpec spec = spec(m, server, new File(out, "open"));
      spec.stages = stages;
      spec.maxSessions = maxSessions;
      open = LoadRun.run(spec, ps);
      LoadRun.report(open, List.of(), spec.outDir, ps);
    }

    ps.println();
    ps.println("== naive closed loop: " + users + " users x " + iterations + " iterations, back to back; the same freeze");
    Results closed;
    try (FreezingEchoServer server = new FreezingEchoServer(Math.max(1, (long) users * iterations / 4), freezeNanos / 1_000_000L)) {
      LoadSpec spec = spec(m, server, new File(out, "closed"));
      spec.users = users;
      spec.iterations = iterations;
      closed = LoadRun.run(spec, ps);
      LoadRun.report(closed, List.of(), spec.outDir, ps);
    }

    ps.println();
    ps.println("== the tails against the freeze (" + Durations.format(freezeNanos) + ")");
    line(ps, "open model, from intended start", open.ops.get("echo").latency);
    line(ps, "open model, service time", open.ops.get("echo").service);
    line(ps, "closed loop, raw", closed.ops.get("echo").latency);
    line(ps, "closed loop, corrected", closed.ops.get("echo").corrected);
    return LoadRun.OK;
  }

  private LoadSpec spec(Mode m, FreezingEchoServer server, File dir) {
    LoadSpec spec = new LoadSpec();
    spec.scenarioClass = LineScenario.class.getName();
    spec.scenarioName = "line";
    spec.mode = m;
    spec.addresses.add(server.address());
    spec.quiet = true;
    spec.outDir = dir;
    return spec;
  }

  private static void line(PrintStream ps, String name, Histogram h) {
    ps.printf(Locale.ROOT, "  %-34s count %7d  p50 %9s  p99 %9s  p99.9 %9s  max %9s%n", name, h.getTotalCount(),
        Durations.format(h.getValueAtPercentile(50)), Durations.format(h.getValueAtPercentile(99)),
        Durations.format(h.getValueAtPercentile(99.9)), Durations.format(h.getMaxValue()));
  }
}
