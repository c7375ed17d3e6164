package io.weft.load;

import io.weft.load.internal.LoadRun;
import io.weft.load.internal.LogMerge;
import io.weft.load.internal.Results;
import io.weft.load.internal.Thresholds;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code weft-load merge}: one report from the interval logs of a run's shards. */
@Command(name = "merge", mixinStandardHelpOptions = true,
    description = "Combine shards' interval logs (intervals.hlog) into one summary and report.")
final class MergeCommand implements Callable<Integer> {
  @ParentCommand WeftLoad parent;

  @Parameters(arity = "1..*", paramLabel = "HLOG", description = "The shards' interval logs.")
  List<File> logs = new ArrayList<>();

  @Option(names = {"-o", "--out"}, paramLabel = "DIR", defaultValue = "weft-load-report",
      description = "Where the merged JSON and HTML reports go. Default: ${DEFAULT-VALUE}.")
  File out;

  @Option(names = "--threshold", paramLabel = "[OP:]METRIC<VALUE", description = "As for a run; repeatable.")
  List<String> thresholds = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    List<Thresholds.Threshold> parsed = new ArrayList<>();
    for (String t : thresholds) {
      parsed.add(Thresholds.parse(t));
    }
    for (File log : logs) {
      if (!log.isFile()) {
        throw new IllegalArgumentException("no such interval log: " + log);
      }
    }
    Results merged = LogMerge.merge(logs);
    return LoadRun.failedIfNothingSucceeded(merged, LoadRun.report(merged, parsed, out, parent.out()), parent.out());
  }
}
