package io.weft.load;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code weft-load} command: drives load against a server with virtual users written as
 * plain blocking Java, one subcommand per scenario. {@link #main} exits with the command's exit
 * code; {@link #run} returns it, for tests.
 */
@Command(name = "weft-load", mixinStandardHelpOptions = true, version = "weft-load 0.1.0",
    description = "A load driver whose virtual users are plain synchronous Java.",
    subcommands = {CommandLine.HelpCommand.class})
public final class WeftLoad {

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line {@code args} and returns its exit code. */
  public static int run(String... args) {
    return new CommandLine(new WeftLoad()).execute(args);
  }
}
