package io.weft.load;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Stands in for weft-load behind the launcher in {@link LauncherTest}: prints the JVM options it was
 * started with ({@code jvm <option>}) and its arguments ({@code arg <argument>}), one a line. Given
 * the argument {@code stdin}, it then prints {@code ready} and reads one line from its standard input
 * ({@code stdin <line>}, or {@code stdin EOF}), blocking until the line comes. As it exits it prints
 * the files in {@code $WEFT_LOAD_ARCHIVE}, if set ({@code file <name>}), and exits with the code its
 * first argument of the form {@code exit=N} names, else 0, having written that code where the launcher
 * asks for it ({@code WEFT_LOAD_EXIT_CODE_FILE}), as weft-load does.
 */
public final class LauncherProbe {
  private LauncherProbe() {}

  public static void main(String[] args) throws IOException {
    for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      System.out.println("jvm " + option);
    }
    for (String arg : args) {
      System.out.println("arg " + arg);
    }
    if (Arrays.asList(args).contains("stdin")) {
      System.out.println("ready");
      System.out.flush();
      String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      System.out.println("stdin " + (line == null ? "EOF" : line));
    }
    // What the launcher tells the run.
    String state = System.getenv("WEFT_LOAD_ARCHIVE_STATE");
    if (state != null) {
      System.out.println("env WEFT_LOAD_ARCHIVE_STATE=" + state);
    }
    String archives = System.getenv("WEFT_LOAD_ARCHIVE");
    String[] files = archives == null ? null : new File(archives).list();
    if (files != null) {
      Arrays.sort(files);
      for (String file : files) {
        System.out.println("file " + file);
      }
    }
    System.out.flush();
    int code = 0;
    for (String arg : args) {
      if (arg.startsWith("exit=")) {
        code = Integer.parseInt(arg.substring(5));
        break;
      }
    }
    // As weft-load does (WeftLoad.recordExitCode): the run's own exit code, over the blanks the launcher wrote.
    String codeFile = System.getenv("WEFT_LOAD_EXIT_CODE_FILE");
    if (codeFile != null && !codeFile.isEmpty()) {
      try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(codeFile, "rw")) {
        f.write((code + "\n").getBytes(StandardCharsets.US_ASCII));
      }
    }
    System.exit(code);
  }
}
