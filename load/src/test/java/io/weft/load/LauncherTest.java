package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher script {@code load/weft-load} runs the jar with the JVM's defaults unless the user
 * gives JVM options of their own ({@code WEFT_LOAD_JAVA_OPTS}), passes every argument on as given and exits with the jar's code;
 * with WEFT_LOAD_ARCHIVE, a scenario subcommand's run also gets a class-data archive (trained by the first such run).
 * It runs the real script as a command (its committed executable bit and its shebang), on a jar whose
 * main class ({@link LauncherProbe}) prints what it was started with. Every run has its own
 * {@code XDG_CACHE_HOME} in the test's directory, so no test writes to the user's cache.
 */
class LauncherTest {
  private static final Path SCRIPT = Path.of(System.getProperty("user.dir"), "weft-load");

  @TempDir
  Path dir;

  @Test
  void runsTheJarWithTheJvmsDefaultsByDefault() throws Exception {
    Run run = launch(probeJar(), null);
    assertEquals(0, run.code, run.toString());
    assertEquals(List.of(), run.jvm(), run.toString());
  }

  @Test
  void theUsersJvmOptionsArePassedOn() throws Exception {
    Run run = launch(probeJar(), "-Xmx300m -Dweft.probe=yes");
    assertEquals(0, run.code, run.toString());
    assertEquals(List.of("-Xmx300m", "-Dweft.probe=yes"), run.jvm(), run.toString());
  }

  @Test
  void emptyJvmOptionsMeanNone() throws Exception {
    Run run = launch(probeJar(), " \n");
    assertEquals(0, run.code, run.toString());
    assertEquals(List.of(), run.jvm(), run.toString());
  }

  @Test
  void everyArgumentIsPassedOnAsGivenAndTheExitCodeComesBack() throws Exception {
    Run run = launch(probeJar(), null, "exit=1", "-c", "SET k v", "*", "", "'quoted' \"twice\"");
    assertEquals(1, run.code, run.toString());
    assertEquals(List.of("exit=1", "-c", "SET k v", "*", "", "'quoted' \"twice\""), run.args(), run.toString());
  }

  @Test
  void aMissingJarIsOneLineOnStandardErrorAndExitThree() throws Exception {
    Path missing = dir.resolve("no-such.jar");
    Run run = launch(missing, null, "http");
    assertEquals(3, run.code, run.toString());
    assertEquals("", run.out, run.toString());
    assertEquals(List.of("weft-load: no jar at " + missing
        + " (build it: ./mvnw -q -pl load -am -DskipTests package, or set WEFT_LOAD_JAR)"), run.err.lines().collect(Collectors.toList()));
  }

  @Test
  void jvmOptionsOnSeveralLinesAreAllPassedOn() throws Exception {
    Run run = launch(probeJar(), "-Xmx300m\n-Dweft.probe=yes\n");
    assertEquals(0, run.code, run.toString());
    assertEquals(List.of("-Xmx300m", "-Dweft.probe=yes"), run.jvm(), run.toString());
  }

  @Test
  void withoutJavaHomeTheJavaOnThePathRuns() throws Exception {
    ProcessBuilder pb = command(probeJar(), null, SCRIPT.toString(), "a");
    pb.environment().remove("JAVA_HOME");
    pb.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":/usr/bin:/bin");
    Run run = run(pb);
    assertEquals(0, run.code, run.toString());
    assertEquals(List.of(), run.jvm(), run.toString());
    assertEquals(List.of("a"), run.args(), run.toString());
  }

  @Test
  void aJavaHomeWithNoJavaIsOneLineOnStandardErrorAndExitThree() throws Exception {
    Path empty = Files.createDirectory(dir.resolve("no-jdk"));
    ProcessBuilder pb = command(probeJar(), null, SCRIPT.toString(), "http");
    pb.environment().put("JAVA_HOME", empty.toString());
    Run run = run(pb);
    assertEquals(3, run.code, run.toString());
    assertEquals("", run.out, run.toString());
    assertEquals(List.of("weft-load: no java at " + empty + "/bin/java (JAVA_HOME=" + empty
        + "; unset it to use java on the PATH)"), run.err.lines().collect(Collectors.toList()));
  }

  /**
   * With no WEFT_LOAD_JAR, the jar is target/weft-load.jar beside the script, not in the working
   * directory, when the script is run by a relative path from elsewhere; and an exported CDPATH
   * (here one that holds another directory named like the script's) does not lead it astray.
   */
  @Test
  void theDefaultJarIsBesideTheScriptWhereverItIsRunFrom() throws Exception {
    Path x = Files.createDirectories(dir.resolve("x/target"));
    Path script = dir.resolve("x/weft-load");
    Files.copy(SCRIPT, script, StandardCopyOption.REPLACE_EXISTING);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.move(probeJar(), x.resolve("weft-load.jar"));
    Path decoy = Files.createDirectories(dir.resolve("decoy/x"));
    ProcessBuilder pb = command(null, null, "x/weft-load", "b c");
    pb.directory(dir.toFile());
    pb.environment().put("CDPATH", decoy.getParent() + ":.");
    Run run = run(pb);
    assertEquals(0, run.code, run.toString());
    assertEquals(List.of(), run.jvm(), run.toString());
    assertEquals(List.of("b c"), run.args(), run.toString());
  }

  /**
   * WEFT_LOAD_ARCHIVE: the first run on this JDK and jar writes a class-data archive there as it
   * exits (a dynamic CDS archive before JDK 25, an AOT cache from 25), the next starts from it,
   * and neither prints anything of the JVM's about it; the exit code still comes back.
   */
  @Test
  void anArchiveIsWrittenByTheFirstRunAndStartsTheNextQuietly() throws Exception {
    Path jar = probeJar();
    Path archives = dir.resolve("archives");
    boolean aot = Runtime.version().feature() >= 25;
    List<String> quiet = aot ? List.of("-Xlog:cds*=off", "-Xlog:aot*=off") : List.of("-Xlog:cds*=off");

    Run first = run(archived(jar, archives, "http", "exit=1"));
    assertEquals(1, first.code, first.toString());
    assertEquals(training("http", archives), first.err, first.toString());
    assertEquals(first.out.lines().count(), first.probeLines(), "only the probe's lines: " + first);
    List<Path> made;
    try (Stream<Path> files = Files.list(archives)) {
      made = files.collect(Collectors.toList());
    }
    assertEquals(1, made.size(), made.toString());
    Path archive = made.get(0);
    assertTrue(archive.getFileName().toString().startsWith("weft-load-http-" + Runtime.version().feature()), archive.toString());
    assertTrue(Files.size(archive) > 0, archive + " is empty");
    String option = first.jvm().get(0);
    assertTrue(option.startsWith(aot ? "-XX:AOTCacheOutput=" : "-XX:ArchiveClassesAtExit="), first.toString());
    assertEquals(quiet, first.jvm().subList(1, first.jvm().size()), first.toString());

    Run next = run(archived(jar, archives, "http", "b"));
    assertEquals(0, next.code, next.toString());
    assertEquals("", next.err, next.toString());
    List<String> reading = new ArrayList<>(List.of((aot ? "-XX:AOTCache=" : "-XX:SharedArchiveFile=") + archive));
    reading.addAll(quiet);
    assertEquals(reading, next.jvm(), next.toString());
    assertEquals(List.of("http", "b"), next.args(), next.toString());
    assertEquals(next.out.lines().count(), next.probeLines(), "only the probe's lines: " + next);
  }

  /**
   * The archive appears only whole (two runs started together, shards, must not read each other's
   * half-written archive): the training run's JVM writes it under a name of its own in the same
   * directory, so at that JVM's exit nothing is under the archive's name yet, and the launcher renames
   * it into place after the JVM has exited: then the one file there is the archive under its name,
   * which the next run reads. The JVM's exit code and its standard input are the launcher's.
   */
  @Test
  void theTrainingRunWritesUnderANameOfItsOwnAndTheArchiveIsRenamedIntoPlaceAfterItExits() throws Exception {
    Path jar = probeJar();
    Path archives = dir.resolve("archives");
    boolean aot = Runtime.version().feature() >= 25;
    String extension = aot ? ".aot" : ".jsa";

    Run first = run(archived(jar, archives, "redis", "exit=1", "stdin"), "one line\n");
    assertEquals(1, first.code, first.toString());
    assertEquals(training("redis", archives), first.err, first.toString());
    assertEquals(List.of("one line"), first.tagged("stdin "), first.toString());
    assertEquals(List.of(), first.tagged("file ").stream().filter(f -> f.endsWith(extension)).collect(Collectors.toList()),
        "an archive under its name while the training JVM ran: " + first);
    String option = aot ? "-XX:AOTCacheOutput=" : "-XX:ArchiveClassesAtExit=";
    assertTrue(first.jvm().get(0).startsWith(option), first.toString());
    Path written = Path.of(first.jvm().get(0).substring(option.length()));
    assertEquals(archives, written.getParent(), "the JVM writes in the archive's directory, so the rename is atomic");

    List<Path> made = files(archives);
    assertEquals(1, made.size(), made.toString());
    Path archive = made.get(0);
    assertTrue(archive.getFileName().toString().endsWith(extension), archive.toString());
    assertNotEquals(written, archive, "the training JVM wrote under the archive's own name, which other runs read");
    assertTrue(Files.size(archive) > 0, archive + " is empty");

    Run next = run(archived(jar, archives, "redis", "b"));
    assertEquals(0, next.code, next.toString());
    assertEquals((aot ? "-XX:AOTCache=" : "-XX:SharedArchiveFile=") + archive, next.jvm().get(0), next.toString());
  }

  /**
   * TERM to the launcher of a training run reaches the JVM (which the launcher does not exec: it
   * renames the archive after it), the launcher exits with 128 + 15 as the JVM did, and the run leaves
   * no archive and no file of its own behind. The probe waits on its standard input (left open here),
   * so it is running when the signal comes.
   */
  @Test
  void aTrainingRunEndedByASignalLeavesNoArchiveAndItsCodeComesBack() throws Exception {
    Path archives = dir.resolve("archives");
    ProcessBuilder pb = archived(probeJar(), archives, "http", "stdin");
    Path err = dir.resolve("err.txt");
    pb.redirectError(err.toFile());
    Process p = pb.start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); !"ready".equals(line); line = out.readLine()) {
        List<String> before = List.copyOf(lines);
        assertNotNull(line, () -> "the probe ended before it was ready: " + before);
        lines.add(line);
      }
      // TERM, as Process.destroy would send, but without closing the streams (destroy closes them).
      assertTrue(p.toHandle().destroy(), "TERM not sent");
      try {
        // A safety net for a hung child, not a measure of time.
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "the launcher did not end within 2 minutes of TERM");
      } finally {
        if (p.isAlive()) {
          p.destroyForcibly();
        }
      }
      out.lines().forEach(lines::add);
    } finally {
      p.getOutputStream().close();
    }
    assertEquals(128 + 15, p.exitValue(), lines + "\nstderr:\n" + Files.readString(err));
    assertEquals(List.of(), files(archives));
  }

  private static List<Path> files(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.sorted().collect(Collectors.toList());
    }
  }

  /**
   * A training run whose JVM cannot write the archive as it exits (here a file-size limit; a full
   * disk alike) exits with the run's own code, not the JVM's 1 ("a threshold failed"), says so in one
   * line on stderr, and leaves no archive and no file of its own: the next run trains again. Before,
   * such a run exited 1 whatever its own code (review-load10-s18 B2).
   */
  @Test
  void aTrainingRunWhoseArchiveCannotBeWrittenExitsWithTheRunsOwnCode() throws Exception {
    Path jar = probeJar();
    Path archives = dir.resolve("archives");
    ProcessBuilder limited = archived(jar, archives, "http", "exit=0");
    List<String> command = new ArrayList<>(List.of("bash", "-c", "ulimit -f 64 && exec \"$0\" \"$@\""));
    command.addAll(limited.command());
    limited.command(command);

    Run first = run(limited);
    assertEquals(0, first.code, first.toString());
    String said = "weft-load: the JVM exited with 1 after the run, writing the class-data archive in " + archives
        + " (a full disk, or a file-size limit?); no archive kept, and the run's own exit code is 0\n";
    assertTrue(first.err.startsWith(training("http", archives)) && first.err.endsWith(said), first.toString());
    assertEquals(List.of(), files(archives), "left by the run that could not write its archive");

    Run next = run(archived(jar, archives, "http"));
    trained(next, "http", archives);
  }

  /**
   * The files of a training run whose launcher was killed (SIGKILL runs no trap: its JVM's
   * {@code NAME.PID.tmp}, and on JDK 25 {@code NAME.PID.tmp.config}) are removed once the next
   * training run of that jar, JDK and subcommand has put its archive in place, if that launcher's
   * pid is gone and they have not changed for an hour; a run still under way (its pid alive) keeps
   * its files, and so does a gone pid's file changed within the hour. Before, nothing ever removed
   * them (review-load10-s18 R1).
   */
  @Test
  void theFilesOfATrainingRunWhoseLauncherWasKilledAreRemovedByTheNextArchivesMaking() throws Exception {
    Path jar = probeJar();
    Path archives = dir.resolve("archives");
    Path archive = trained(run(archived(jar, archives, "http")), "http", archives);
    String name = archive.toString().substring(0, archive.toString().lastIndexOf('.'));
    // A pid no process can have: one above the kernel's largest.
    // (Read by lines: Files.readString takes a /proc file's size, 0, and reads too little of it.)
    long gone = Long.parseLong(Files.readAllLines(Path.of("/proc/sys/kernel/pid_max")).get(0).trim()) + 1;
    List<Path> stale = List.of(Path.of(name + "." + gone + ".tmp"), Path.of(name + "." + gone + ".tmp.config"),
        Path.of(name + "." + gone + ".tmp.code"));
    Path underWay = Path.of(name + "." + ProcessHandle.current().pid() + ".tmp");
    // Left an hour and more ago; the run under way's file as old.
    java.nio.file.attribute.FileTime longAgo = java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 2 * 3600_000L);
    for (Path file : stale) {
      Files.setLastModifiedTime(Files.writeString(file, "left"), longAgo);
    }
    Files.setLastModifiedTime(Files.writeString(underWay, "under way"), longAgo);
    // A file of a gone launcher that changed within the hour: perhaps of a launcher this one cannot see.
    Path recent = Path.of(name + "0." + gone + ".tmp.code");
    Files.writeString(recent, "    \n");
    Files.delete(archive);

    Path again = trained(run(archived(jar, archives, "http")), "http", archives);
    assertEquals(List.of(again, underWay, recent).stream().sorted().collect(Collectors.toList()), files(archives));
  }

  /** An archive that does not fit this JVM (here: not an archive at all) is ignored, silently. */
  @Test
  void anArchiveThatDoesNotFitIsIgnoredQuietly() throws Exception {
    Path jar = probeJar();
    Path archives = dir.resolve("archives");
    Run first = run(archived(jar, archives, "http"));
    assertEquals(0, first.code, first.toString());
    Path archive;
    try (Stream<Path> files = Files.list(archives)) {
      archive = files.findFirst().orElseThrow();
    }
    Files.writeString(archive, "not an archive");
    Run next = run(archived(jar, archives, "http", "c"));
    assertEquals(0, next.code, next.toString());
    assertEquals("", next.err, next.toString());
    assertTrue(next.jvm().get(0).endsWith("=" + archive), next.toString());
    assertEquals(List.of("http", "c"), next.args(), next.toString());
    assertEquals(next.out.lines().count(), next.probeLines(), "only the probe's lines: " + next);
  }

  /** With no WEFT_LOAD_ARCHIVE a scenario subcommand's run has no archive: nothing added, nothing written. */
  @Test
  void byDefaultAScenarioRunHasNoArchive() throws Exception {
    Run run = launch(probeJar(), null, "http", "-u", "10");
    assertEquals(0, run.code, run.toString());
    assertEquals("", run.err, run.toString());
    assertEquals(List.of(), run.jvm(), run.toString());
    assertTrue(!Files.exists(dir.resolve("xdg-cache")), "a cache directory was made");
  }

  /**
   * WEFT_LOAD_ARCHIVE=cache: a scenario subcommand's run uses an archive in the user's cache
   * directory ($XDG_CACHE_HOME/weft-load): the first run trains it and says so in one line on stderr,
   * the next reads it and says nothing.
   */
  @Test
  void inTheCacheTheFirstScenarioRunTrainsAnArchiveInTheUsersCacheAndTheNextStartsFromIt() throws Exception {
    Path jar = probeJar();
    Path cache = dir.resolve("xdg-cache").resolve("weft-load");
    boolean aot = Runtime.version().feature() >= 25;

    Run first = run(archived(jar, Path.of("cache"), "redis", "-u", "10"));
    assertEquals(0, first.code, first.toString());
    assertEquals(training("redis", cache), first.err, first.toString());
    assertTrue(first.jvm().get(0).startsWith((aot ? "-XX:AOTCacheOutput=" : "-XX:ArchiveClassesAtExit=") + cache + "/weft-load-redis-"),
        first.toString());
    List<Path> made = files(cache);
    assertEquals(1, made.size(), made.toString());

    Run next = run(archived(jar, Path.of("cache"), "redis", "-u", "10"));
    assertEquals(0, next.code, next.toString());
    assertEquals("", next.err, next.toString());
    assertEquals((aot ? "-XX:AOTCache=" : "-XX:SharedArchiveFile=") + made.get(0), next.jvm().get(0), next.toString());
    assertEquals(List.of("redis", "-u", "10"), next.args(), next.toString());
  }

  /**
   * WEFT_LOAD_ARCHIVE=cache without XDG_CACHE_HOME: the cache directory is $HOME/.cache/weft-load; a
   * relative XDG_CACHE_HOME is ignored (the XDG spec), so that run reads the same archive.
   */
  @Test
  void withoutXdgCacheHomeTheArchiveIsUnderHomeDotCache() throws Exception {
    Path home = Files.createDirectory(dir.resolve("home"));
    Path jar = probeJar();
    ProcessBuilder pb = command(jar, null, SCRIPT.toString(), "http");
    pb.environment().remove("XDG_CACHE_HOME");
    pb.environment().put("WEFT_LOAD_ARCHIVE", "cache");
    pb.environment().put("HOME", home.toString());
    Run run = run(pb);
    assertEquals(0, run.code, run.toString());
    Path cache = home.resolve(".cache").resolve("weft-load");
    assertEquals(training("http", cache), run.err, run.toString());
    assertEquals(1, files(cache).size(), files(cache).toString());

    ProcessBuilder relative = command(jar, null, SCRIPT.toString(), "http");
    relative.environment().put("XDG_CACHE_HOME", "relative-cache");
    relative.environment().put("WEFT_LOAD_ARCHIVE", "cache");
    relative.environment().put("HOME", home.toString());
    relative.directory(dir.toFile());
    Run next = run(relative);
    assertEquals("", next.err, next.toString());
    assertTrue(next.jvm().get(0).endsWith("=" + files(cache).get(0)), next.toString());
    assertTrue(!Files.exists(dir.resolve("relative-cache")), "a relative XDG_CACHE_HOME was used");
  }

  /**
   * The user's own class-data sharing options turn the archive off: the JVM would refuse to start
   * with ours beside them (JDK 25: AOTCache with any -Xshare; JDK 17: a dynamic dump with -Xshare:off).
   */
  @Test
  void theUsersOwnClassDataSharingOptionsTurnTheArchiveOff() throws Exception {
    Path archives = dir.resolve("archives");
    Path jar = probeJar();
    for (String share : List.of("-Xshare:off", "-Xshare:auto")) {
      ProcessBuilder pb = archived(jar, archives, "http");
      pb.environment().put("WEFT_LOAD_JAVA_OPTS", share);
      Run run = run(pb);
      assertEquals(0, run.code, share + ": " + run);
      assertEquals("", run.err, share + ": " + run);
      assertEquals(List.of(share), run.jvm(), share + ": " + run);
    }
    assertTrue(!Files.exists(archives), "an archive directory was made");
  }

  /** WEFT_LOAD_ARCHIVE=off, or empty, means no archive: no JVM option, nothing written. */
  @Test
  void offOrEmptyMeansNoArchive() throws Exception {
    for (String off : List.of("off", "")) {
      ProcessBuilder pb = command(probeJar(), null, SCRIPT.toString(), "http");
      pb.environment().put("WEFT_LOAD_ARCHIVE", off);
      pb.directory(dir.toFile());
      Run run = run(pb);
      assertEquals(0, run.code, run.toString());
      assertEquals("", run.err, run.toString());
      assertEquals(List.of(), run.jvm(), "WEFT_LOAD_ARCHIVE='" + off + "': " + run);
    }
    assertTrue(!Files.exists(dir.resolve("off")) && !Files.exists(dir.resolve("xdg-cache")), "an archive directory was made");
  }

  /**
   * Only a scenario subcommand's run uses an archive: a first run of merge, example, help or
   * --version (or a scenario's --help) would train one on a path no load run takes.
   */
  @Test
  void onlyAScenarioSubcommandsRunUsesAnArchive() throws Exception {
    Path archives = dir.resolve("archives");
    Path jar = probeJar();
    for (List<String> args : List.of(List.<String>of(), List.of("merge", "a.hlog"), List.of("example", "co-demo"), List.of("help", "http"),
        List.of("--version"), List.of("-V"), List.of("http", "--help"), List.of("redis", "-h"), List.of("Http"))) {
      Run run = run(archived(jar, archives, args.toArray(new String[0])));
      assertEquals(0, run.code, run.toString());
      assertEquals(List.of(), run.jvm(), args + ": " + run);
      assertEquals("", run.err, args + ": " + run);
    }
    assertTrue(!Files.exists(archives) || files(archives).isEmpty(), "an archive was trained: " + (Files.exists(archives) ? files(archives) : ""));
    for (String scenario : List.of("redis", "pg", "http", "smtp", "line", "run")) {
      Run run = run(archived(jar, archives, scenario, "-d", "1s"));
      assertEquals(training(scenario, archives), run.err, run.toString());
    }
    assertEquals(6, files(archives).size(), files(archives).toString());
  }

  /**
   * The archive is kept only from a run that was made (exit 0, or 1: a threshold failed): a usage
   * error (2) or a run that failed (3: the server refused, say) took a path no load run takes.
   */
  @Test
  void onlyARunThatWasMadeKeepsItsArchive() throws Exception {
    Path archives = dir.resolve("archives");
    Path jar = probeJar();
    for (int code : new int[] {2, 3, 4}) {
      Run run = run(archived(jar, archives, "http", "exit=" + code));
      assertEquals(code, run.code, run.toString());
      assertEquals(List.of(), files(archives), "exit " + code + " kept an archive: " + run);
    }
    Run made = run(archived(jar, archives, "http", "exit=1"));
    assertEquals(1, made.code, made.toString());
    assertEquals(1, files(archives).size(), files(archives).toString());
  }

  /**
   * Each subcommand has an archive of its own, and a rebuilt jar at the same path trains anew and,
   * once its archive is in place, removes the old build's (that subcommand's only); a jar at another
   * path has archives of its own, left alone.
   */
  @Test
  void eachSubcommandHasItsOwnArchiveAndARebuiltJarsReplacesTheOldOne() throws Exception {
    Path archives = dir.resolve("archives");
    Path jar = probeJar();
    Path other = Files.copy(jar, dir.resolve("other.jar"));
    Path oldHttp = trained(run(archived(jar, archives, "http")), "http", archives);
    Path oldRedis = trained(run(archived(jar, archives, "redis")), "redis", archives);
    Path otherHttp = trained(run(archived(other, archives, "http")), "http", archives);
    List<Path> before = files(archives);
    assertEquals(List.of(oldHttp, oldRedis, otherHttp).stream().sorted().collect(Collectors.toList()), before);

    // The rebuild: another jar at the same path, of another size and time.
    long size = Files.size(jar);
    probeJar("rebuilt");
    assertNotEquals(size, Files.size(jar));
    Files.setLastModifiedTime(jar, java.nio.file.attribute.FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 3_600_000L));
    Path newHttp = trained(run(archived(jar, archives, "http")), "http", archives);
    assertNotEquals(oldHttp, newHttp, "the rebuilt jar's archive has the old one's name");
    List<Path> after = files(archives);
    assertEquals(List.of(newHttp, oldRedis, otherHttp).stream().sorted().collect(Collectors.toList()), after,
        "the old build's http archive goes, the redis one and the other jar's stay");
    Run next = run(archived(jar, archives, "http"));
    assertEquals("", next.err, next.toString());
    assertEquals((Runtime.version().feature() >= 25 ? "-XX:AOTCache=" : "-XX:SharedArchiveFile=") + newHttp, next.jvm().get(0), next.toString());
  }

  /**
   * The archive {@code run} trained for {@code subcommand}, in {@code archives}: it said so, and its JVM
   * wrote {@code NAME.PID.tmp}, which the launcher renamed to {@code NAME.jsa} (JDK 25+: {@code NAME.aot}),
   * there now.
   */
  private static Path trained(Run run, String subcommand, Path archives) {
    assertEquals(0, run.code, run.toString());
    assertEquals(training(subcommand, archives), run.err, run.toString());
    boolean aot = Runtime.version().feature() >= 25;
    String option = aot ? "-XX:AOTCacheOutput=" : "-XX:ArchiveClassesAtExit=";
    String written = run.jvm().get(0);
    assertTrue(written.startsWith(option) && written.endsWith(".tmp"), run.toString());
    String name = written.substring(option.length(), written.length() - ".tmp".length());
    Path archive = Path.of(name.substring(0, name.lastIndexOf('.')) + (aot ? ".aot" : ".jsa"));
    assertEquals(archives, archive.getParent(), run.toString());
    assertTrue(archive.getFileName().toString().startsWith("weft-load-" + subcommand + "-"), archive.toString());
    assertTrue(Files.isRegularFile(archive), archive + " is not there: " + run);
    return archive;
  }

  /**
   * The launcher tells the run which class-data archive it started with (the summary's "class-data
   * archive"): none, the one it trains, the one it reads; a value the caller exported under the
   * launcher's names is not passed on.
   */
  @Test
  void theRunIsToldWhichArchiveItStartedWith() throws Exception {
    Path jar = probeJar();
    Path archives = dir.resolve("archives");
    ProcessBuilder none = command(jar, null, SCRIPT.toString(), "http");
    none.environment().put("WEFT_LOAD_ARCHIVE_STATE", "used /elsewhere");
    Run plain = run(none);
    assertEquals(0, plain.code, plain.toString());
    assertEquals("none", plain.env("WEFT_LOAD_ARCHIVE_STATE"), plain.toString());

    Run training = run(archived(jar, archives, "http"));
    assertEquals(0, training.code, training.toString());
    assertEquals("training " + archives, training.env("WEFT_LOAD_ARCHIVE_STATE"), training.toString());
    Path archive;
    try (Stream<Path> files = Files.list(archives)) {
      archive = files.collect(Collectors.toList()).get(0);
    }

    Run next = run(archived(jar, archives, "http"));
    assertEquals(0, next.code, next.toString());
    assertEquals("used " + archive, next.env("WEFT_LOAD_ARCHIVE_STATE"), next.toString());
  }

  /** The line a training run prints on stderr. */
  private static String training(String subcommand, Path archives) {
    return "weft-load: the first " + subcommand + " run with this JDK and jar trains a class-data archive for later runs, in "
        + archives + "\n";
  }

  private ProcessBuilder archived(Path jar, Path archives, String... args) {
    ProcessBuilder pb = command(jar, null, SCRIPT.toString(), args);
    pb.environment().put("WEFT_LOAD_ARCHIVE", archives.toString());
    return pb;
  }

  /** A jar holding only {@link LauncherProbe}, its main class. */
  private Path probeJar() throws IOException {
    return probeJar(null);
  }

  /** dir/probe.jar, holding {@link LauncherProbe}, its main class, and an entry named {@code extra} if not null. */
  private Path probeJar(String extra) throws IOException {
    Path jar = dir.resolve("probe.jar");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, LauncherProbe.class.getName());
    String entry = LauncherProbe.class.getName().replace('.', '/') + ".class";
    try (OutputStream file = Files.newOutputStream(jar);
         JarOutputStream out = new JarOutputStream(file, manifest);
         InputStream in = LauncherProbe.class.getClassLoader().getResourceAsStream(entry)) {
      out.putNextEntry(new JarEntry(entry));
      in.transferTo(out);
      out.closeEntry();
      if (extra != null) {
        out.putNextEntry(new JarEntry(extra));
        out.write(extra.getBytes(StandardCharsets.UTF_8));
        out.closeEntry();
      }
    }
    return jar;
  }

  /** Runs the script with {@code javaOpts} as WEFT_LOAD_JAVA_OPTS (null: unset) and {@code args}. */
  private Run launch(Path jar, String javaOpts, String... args) throws Exception {
    return run(command(jar, javaOpts, SCRIPT.toString(), args));
  }

  /**
   * The script {@code script} run as a command with {@code args}, WEFT_LOAD_JAR {@code jar} (null:
   * unset), WEFT_LOAD_JAVA_OPTS {@code javaOpts} (null: unset) and this JVM's java as JAVA_HOME.
   */
  private ProcessBuilder command(Path jar, String javaOpts, String script, String... args) {
    assertTrue(Files.isRegularFile(SCRIPT), "no launcher at " + SCRIPT);
    List<String> command = new ArrayList<>(List.of(script));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    Map<String, String> env = pb.environment();
    env.remove("WEFT_LOAD_JAVA_OPTS");
    env.remove("WEFT_LOAD_JAR");
    env.remove("WEFT_LOAD_ARCHIVE");
    env.remove("CDPATH");
    // Options the java launcher or the JVM would pick up from the environment would show as the probe's.
    env.remove("JDK_JAVA_OPTIONS");
    env.remove("JAVA_TOOL_OPTIONS");
    env.remove("_JAVA_OPTIONS");
    if (javaOpts != null) {
      env.put("WEFT_LOAD_JAVA_OPTS", javaOpts);
    }
    if (jar != null) {
      env.put("WEFT_LOAD_JAR", jar.toString());
    }
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("XDG_CACHE_HOME", dir.resolve("xdg-cache").toString());
    return pb;
  }

  private Run run(ProcessBuilder pb) throws Exception {
    return run(pb, "");
  }

  /** Runs {@code pb} with {@code input} as its standard input. */
  private Run run(ProcessBuilder pb, String input) throws Exception {
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    Path in = Files.writeString(dir.resolve("in.txt"), input, StandardCharsets.UTF_8);
    pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(in.toFile());
    Process p = pb.start();
    try {
      // A safety net for a hung child, not a measure of time.
      if (!p.waitFor(2, TimeUnit.MINUTES)) {
        throw new AssertionError("the launcher did not end within 2 minutes: " + pb.command());
      }
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
  }

  private static final class Run {
    final int code;
    final String out;
    final String err;

    Run(int code, String out, String err) {
      this.code = code;
      this.out = out;
      this.err = err;
    }

    List<String> jvm() {
      return tagged("jvm ");
    }

    List<String> args() {
      return tagged("arg ");
    }

    /** The lines the probe prints: its options, arguments, the archive directory's files, stdin. */
    long probeLines() {
      return jvm().size() + args().size() + tagged("file ").size() + tagged("stdin ").size() + tagged("env ").size()
          + out.lines().filter("ready"::equals).count();
    }

    /** The value the launcher gave the run for {@code name}, or null. */
    String env(String name) {
      return tagged("env ").stream().filter(l -> l.startsWith(name + "=")).map(l -> l.substring(name.length() + 1))
          .findFirst().orElse(null);
    }

    List<String> tagged(String tag) {
      return out.lines().filter(l -> l.startsWith(tag)).map(l -> l.substring(tag.length())).collect(Collectors.toList());
    }

    @Override
    public String toString() {
      return "exit " + code + "\nstdout:\n" + out + "stderr:\n" + err;
    }
  }
}
