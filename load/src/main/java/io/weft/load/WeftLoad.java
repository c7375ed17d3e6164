package io.weft.load;

import io.weft.continuations.NotInstrumentableException;
import io.weft.continuations.RunAbortedException;
import io.weft.load.internal.LoadRun;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code weft-load} command: drives load against a server with virtual users written as
 * plain blocking Java, one subcommand per scenario, and {@code merge} for shards' interval logs.
 * {@link #main} exits with the command's exit code: 0 done, 1 a threshold failed, 2 a usage
 * error, 3 the run could not be made or was aborted (the heap ran out: the message says where). {@link #run} returns it, for tests.
 */
@Command(name = "weft-load", mixinStandardHelpOptions = true, version = "weft-load 0.1.0",
    description = "A load driver whose virtual users are plain synchronous Java.",
    subcommands = {ScenarioCommands.Redis.class, ScenarioCommands.Pg.class, ScenarioCommands.Http.class,
        ScenarioCommands.Smtp.class, ScenarioCommands.Line.class, ScenarioCommands.Run.class, MergeCommand.class,
        ExampleCommand.class, CommandLine.HelpCommand.class})
public final class WeftLoad {
  private static final String LEAK_DETECTION = "io.netty.leakDetection.level";
  /** The names Netty also reads the level, or the detector's switch, from: a user's choice too. */
  private static final String[] LEGACY_LEAK_DETECTION = {"io.netty.leakDetectionLevel", "io.netty.noResourceLeakDetection"};

  private final PrintStream out;

  private WeftLoad(PrintStream out) {
    this.out = out;
  }

  PrintStream out() {
    return out;
  }

  public static void main(String[] args) {
    // Netty's leak detector samples one buffer in 128 with a stack trace (a Throwable) and tracks
    // it by a weak reference: 1.5-2% of the event loops' time at 36,000 requests a second, in a
    // driver whose every buffer is released by the transport. Off unless asked for
    // (-Dio.netty.leakDetection.level=simple, or Netty's older names); set before any Netty class
    // loads. Tests that call run() keep Netty's default.
    if (!leakDetectionChosen(System.getProperties())) {
      System.setProperty(LEAK_DETECTION, "disabled");
    }
    int code = run(System.out, args);
    recordExitCode(System.getenv(EXIT_CODE_FILE), code);
    System.exit(code);
  }

  /**
   * The environment variable through which the launcher ({@code load/weft-load}) asks for the run's
   * own exit code in a file, on a run that trains a class-data archive: the JVM writes that archive
   * after {@code System.exit}, and if it cannot (a full disk, a file-size limit) the JVM exits 1,
   * whatever the run's code was. The launcher then exits with this one.
   */
  static final String EXIT_CODE_FILE = "WEFT_LOAD_EXIT_CODE_FILE";

  /**
   * The environment variable through which the launcher says which class-data archive the run
   * started with: "none", "training DIR" or "used FILE" (the summary's "class-data archive").
   */
  static final String ARCHIVE_STATE = "WEFT_LOAD_ARCHIVE_STATE";

  /**
   * Writes {@code code} and a newline at the start of {@code file}, over what is there (the
   * launcher makes it before the run with a few blanks, so that the write needs no new room on a
   * full disk); nothing if {@code file} is null or empty. Best effort: a code that cannot be written
   * leaves the launcher with the JVM's.
   */
  static void recordExitCode(String file, int code) {
    if (file == null || file.isEmpty()) {
      return;
    }
    try (RandomAccessFile f = new RandomAccessFile(file, "rw")) {
      f.write((code + "\n").getBytes(StandardCharsets.US_ASCII));
    } catch (IOException | RuntimeException e) {
      // The launcher goes by the JVM's exit code, as without the file.
    }
  }

  /**
   * Whether the user chose how Netty's leak detector runs, by its property or by one of the older
   * names Netty still reads ({@code io.netty.leakDetectionLevel}, {@code io.netty.noResourceLeakDetection}).
   */
  static boolean leakDetectionChosen(Properties properties) {
    if (properties.getProperty(LEAK_DETECTION) != null) {
      return true;
    }
    for (String legacy : LEGACY_LEAK_DETECTION) {
      if (properties.getProperty(legacy) != null) {
        return true;
      }
    }
    return false;
  }

  /** Runs the command line {@code args}, printing to {@code out}, and returns its exit code. */
  public static int run(PrintStream out, String... args) {
    CommandLine cl = new CommandLine(new WeftLoad(out));
    cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      if (e instanceof IllegalArgumentException) {
        commandLine.getErr().println("weft-load: " + e.getMessage());
        return commandLine.getCommandSpec().exitCodeOnInvalidInput();
      }
      if (e instanceof RunAbortedException) {
        // The heap ran out: the reason is the whole story, and a stack trace would need memory too.
        commandLine.getErr().println("weft-load: " + e.getMessage());
        return LoadRun.FAILED;
      }
      if (e instanceof NotInstrumentableException || e instanceof UnsupportedOperationException) {
        // Refused before any session started: the message says why and what to do.
        commandLine.getErr().println("weft-load: " + e.getMessage());
        return LoadRun.FAILED;
      }
      commandLine.getErr().println("weft-load: the run failed: " + e);
      e.printStackTrace(commandLine.getErr());
      return LoadRun.FAILED;
    });
    return cl.execute(args);
  }
}
