package io.weft.load;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code weft-load example}: demonstrations that start their own server in the JVM, kept apart
 * from the commands that load a real one.
 */
@Command(name = "example", mixinStandardHelpOptions = true,
    description = "Demonstrations with their own server: co-demo (coordinated omission).",
    subcommands = {CoDemoCommand.class})
final class ExampleCommand implements Callable<Integer> {
  @ParentCommand WeftLoad parent;
  @Spec CommandSpec spec;

  PrintStream out() {
    return parent.out();
  }

  @Override
  public Integer call() {
    // No demonstration named: say which there are, as a usage error.
    spec.commandLine().usage(spec.commandLine().getErr());
    return spec.exitCodeOnInvalidInput();
  }
}
