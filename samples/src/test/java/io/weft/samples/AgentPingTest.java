package io.weft.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weft.continuations.tools.Agent;
import io.weft.samples.agent.AgentPing;
import io.weft.testsupport.RedisServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the agent sample in a JVM of its own, as its javadoc says to, with and without the agent. */
class AgentPingTest {
  private static final long CHILD_TIMEOUT_SECONDS = 120;

  @TempDir Path temp;

  @Test
  void runsEverySessionWhenTheAgentRewritesTheSampleAndTheProtocolJar() throws Exception {
    try (RedisServerProcess redis = Redis.start()) {
      String agent = "-javaagent:" + agentJar() + "=io.weft.samples.agent,io.weft.protocols";
      Child child = java(List.of(agent), Integer.toString(redis.port()), "200");
      assertEquals(0, child.exit, child.toString());
      assertTrue(child.out.contains("CONTINUATIONS(1): 200 sessions, 200 succeeded, 0 failed"), child.toString());
      assertTrue(child.out.contains("PONGs: 600 of 600"), child.toString());
    }
  }

  @Test
  void withoutTheAgentTheRunIsRefusedNamingTheClassAndTheFix() throws Exception {
    try (RedisServerProcess redis = Redis.start()) {
      Child child = java(List.of(), Integer.toString(redis.port()), "10");
      assertEquals(2, child.exit, child.toString());
      assertTrue(child.out.contains("refused: io.weft.samples.agent.PingTask was not rewritten for continuations"),
          child.toString());
      assertTrue(child.out.contains("-javaagent:"), child.toString());
    }
  }

  /**
   * The continuations jar, as the reactor built it. Run from classes directories instead (an IDE),
   * a jar of them with the manifest the pom gives the real one.
   */
  private Path agentJar() throws Exception {
    Path location = Paths.get(Agent.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    if (Files.isRegularFile(location)) {
      return location;
    }
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(new Attributes.Name("Premain-Class"), Agent.class.getName());
    Path jar = temp.resolve("continuations-agent.jar");
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

  private Child java(List<String> jvmArgs, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(AgentPing.class.getName());
    command.add("127.0.0.1");
    command.addAll(List.of(args));
    Path out = temp.resolve("out-" + System.nanoTime() + ".txt");
    Path err = temp.resolve("err-" + System.nanoTime() + ".txt");
    Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!process.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
      fail("child JVM still running after " + CHILD_TIMEOUT_SECONDS + " s: " + command + "\n"
          + Files.readString(err));
    }
    return new Child(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  private static final class Child {
    final int exit;
    final String out;
    final String err;

    Child(int exit, String out, String err) {
      this.exit = exit;
      this.out = out;
      this.err = err;
    }

    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }
}
