package io.weft.perf.micro;

import io.weft.perf.Targets;
import io.weft.transport.spi.VirtualThreads;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The benchmarks jar's entry point: JMH's own command line ({@code -h} lists it), except that
 * on a JDK without virtual threads the virtual-thread benchmarks are left out with a message
 * instead of failing one by one, and that after a run the microbenchmark targets are checked
 * against its results and printed ({@link Targets#micro}, {@code # target:} lines), and that a
 * command line naming no benchmark runs this package's microbenchmarks only (the whole-run
 * {@code ScalingBenchmark} runs when named). JMH parses its own command line; this class adds
 * no option of its own.
 */
public final class BenchmarkMain {
  /** What runs when the command line names no benchmark: this package's microbenchmarks. */
  static final String DEFAULT_INCLUDE = "io\\.weft\\.perf\\.micro\\.";

  private BenchmarkMain() {
  }

  public static void main(String[] args) throws Exception {
    List<String> jmhArgs = new ArrayList<>(Arrays.asList(args));
    String noVirtualThreads = null;
    if (!VirtualThreads.available()) {
      noVirtualThreads = VirtualThreads.unavailableReason();
      System.out.println("# Skipping VirtualThreadParkBenchmark: " + noVirtualThreads
          + " (run on JDK 21+ to include it)");
      jmhArgs.add(0, "-e");
      jmhArgs.add(1, "VirtualThread");
    }
    String[] argv = jmhArgs.toArray(new String[0]);
    CommandLineOptions options;
    try {
      options = new CommandLineOptions(argv);
    } catch (CommandLineOptionException e) {
      org.openjdk.jmh.Main.main(argv); // prints JMH's own message and exits
      return;
    }
    if (options.shouldHelp() || options.shouldList() || options.shouldListWithParams()
        || options.shouldListProfilers() || options.shouldListResultFormats()) {
      org.openjdk.jmh.Main.main(argv);
      return;
    }
    Options run = options;
    if (options.getIncludes().isEmpty()) {
      // No benchmark named: the microbenchmarks. Whole runs (ScalingBenchmark) only when named.
      run = new OptionsBuilder().parent(options).include(DEFAULT_INCLUDE).build();
    }
    Collection<RunResult> results;
    try {
      results = new Runner(run).run();
    } catch (RunnerException e) {
      System.err.print("ERROR: ");
      e.printStackTrace(System.err);
      System.exit(1);
      return;
    }
    System.out.println();
    System.out.println("# Targets (JDK " + Runtime.version() + ", "
        + Runtime.getRuntime().availableProcessors() + " cores, load average "
        + String.format(java.util.Locale.ROOT, "%.2f",
            java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage())
        + "):");
    for (String line : Targets.micro(figures(results), noVirtualThreads)) {
      System.out.println("# target: " + line);
    }
  }

  /** Each result as the targets read it: simple class name, parameters (-1 when absent), score. */
  static List<Targets.MicroFigure> figures(Collection<RunResult> results) {
    List<Targets.MicroFigure> figures = new ArrayList<>();
    for (RunResult r : results) {
      String name = r.getParams().getBenchmark();
      String simple = name.substring(0, name.lastIndexOf('.'));
      simple = simple.substring(simple.lastIndexOf('.') + 1);
      String depth = r.getParams().getParam("depth");
      String timeout = r.getParams().getParam("waitTimeoutMs");
      figures.add(new Targets.MicroFigure(simple, depth == null ? -1 : Integer.parseInt(depth),
          timeout == null ? -1L : Long.parseLong(timeout),
          r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError()));
    }
    return figures;
  }
}
