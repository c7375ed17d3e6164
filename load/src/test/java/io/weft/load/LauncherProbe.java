package io.weft.load;

import java.lang.management.ManagementFactory;

/**
 * Stands in for weft-load behind the launcher in {@link LauncherTest}: prints the JVM options it was
 * started with ({@code jvm <option>}) and its arguments ({@code arg <argument>}), one a line, and
 * exits with the code its first argument names ({@code exit=N}), else 0.
 */
public final class LauncherProbe {
  private LauncherProbe() {}

  public static void main(String[] args) {
    for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      System.out.println("jvm " + option);
    }
    for (String arg : args) {
      System.out.println("arg " + arg);
    }
    System.out.flush();
    int code = args.length > 0 && args[0].startsWith("exit=") ? Integer.parseInt(args[0].substring(5)) : 0;
    System.exit(code);
  }
}
