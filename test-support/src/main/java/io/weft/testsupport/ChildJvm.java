package io.weft.testsupport;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * A {@code main} run in a JVM of its own, as the tests of a Java agent need: this JVM's
 * {@code java}, this JVM's class path ({@link #run run}) or a given one ({@link #runOnClassPath
 * runOnClassPath}), the given JVM options, stdout and stderr captured to files in a directory the
 * test owns, no standard input, and a time limit after which the child is killed and the test
 * fails. A child whose wait is cut short (the test's thread interrupted, say by JUnit's timeout) is
 * killed too. Also builds the agent jar such a child is started with.
 */
public final class ChildJvm {
  private ChildJvm() {}

  /** How a child JVM ended: its exit code and everything it printed. */
  public record Result(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  /**
   * Runs {@code mainClass} with {@code args} in a new JVM started with {@code jvmOptions}, and
   * waits for it to end.
   *
   * @param workDir where its output files go (a test's temporary directory)
   * @throws AssertionError if it is still running after {@code limit} (it is killed first)
   */
  public static Result run(Path workDir, Duration limit, List<String> jvmOptions, String mainClass, String... args)
      throws IOException, InterruptedException {
    return runOnClassPath(workDir, limit, jvmOptions, System.getProperty("java.class.path"), mainClass, args);
  }

  /**
   * {@link #run(Path, Duration, List, String, String...)} with the class path {@code classPath}
   * instead of this JVM's (a tool's output ahead of the classes it rewrote, say): directories and
   * jars joined by {@link java.io.File#pathSeparator}, as {@code java -cp} takes them.
   */
  public static Result runOnClassPath(Path workDir, Duration limit, List<String> jvmOptions, String classPath,
      String mainClass, String... args) throws IOException, InterruptedException {
    return runUnder(List.of(), workDir, limit, jvmOptions, classPath, mainClass, args);
  }

  /**
   * {@link #runOnClassPath} with the {@code java} command started by {@code launcher}, a command
   * that runs the arguments after its own (as {@code unshare -rn} does, for a network namespace of
   * the child's own); none for {@code java} itself. The launcher must end with the JVM (exec it).
   */
  public static Result runUnder(List<String> launcher, Path workDir, Duration limit, List<String> jvmOptions,
      String classPath, String mainClass, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(launcher);
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classPath);
    command.add(mainClass);
    command.addAll(List.of(args));
    Path out = Files.createTempFile(workDir, "out-", ".txt");
    Path err = Files.createTempFile(workDir, "err-", ".txt");
    Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try (OutputStream stdin = process.getOutputStream()) {
      // No input: closing it gives the child end of stream at once.
    }
    try {
      if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        threadDump(process);
        // Its own children too (a server it started), which its killed JVM would not stop.
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor();
        throw new AssertionError("child JVM still running after " + limit.toSeconds() + " s: " + command + "\n"
            + read(out) + read(err));
      }
    } finally {
      // Interrupted while waiting (a test's own timeout): the child must not outlive the test.
      if (process.isAlive()) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    }
    return new Result(process.exitValue(), read(out), read(err));
  }

  /**
   * A jar for {@code -javaagent:} holding the classes of {@code premainClass}'s code source with
   * a manifest naming it as {@code Premain-Class}, as the module's own jar has: the reactor's jar
   * when the code source already is one, else one written into {@code workDir} from the classes
   * directory (a test run before {@code package}, or from an IDE).
   */
  public static Path agentJar(Class<?> premainClass, Path workDir) throws IOException {
    Path location = codeSource(premainClass);
    if (Files.isRegularFile(location)) {
      return location;
    }
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().putValue("Premain-Class", premainClass.getName());
    Path jar = Files.createTempFile(workDir, "agent-", ".jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
         Stream<Path> files = Files.walk(location)) {
      for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        out.putNextEntry(new JarEntry(location.relativize(file).toString().replace('\\', '/')));
        Files.copy(file, out);
        out.closeEntry();
      }
    }
    return jar;
  }

  /** Where {@code c} was loaded from: a classes directory or a jar. */
  public static Path codeSource(Class<?> c) {
    try {
      return Paths.get(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("no code source path for " + c, e);
    }
  }

  /**
   * Has a child that overran its limit print its threads' stacks into its standard output
   * (SIGQUIT, as {@code kill -3} sends), so that the failure shows where it was stuck; gives it
   * a few seconds to, and does nothing where there is no {@code kill}.
   */
  private static void threadDump(Process process) throws InterruptedException {
    try {
      Process kill = new ProcessBuilder("kill", "-3", Long.toString(process.pid())).start();
      kill.waitFor(5, TimeUnit.SECONDS);
      // Not a wait for an outcome: the dump is written by the time the child would have ended.
      process.waitFor(3, TimeUnit.SECONDS);
    } catch (IOException e) {
      // No kill command here: the failure goes without the dump.
    }
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }
}
