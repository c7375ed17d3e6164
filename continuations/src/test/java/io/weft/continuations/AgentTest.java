package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weft.continuations.testing.AgentChild;
import io.weft.continuations.testing.AgentRefusalChild;
import io.weft.continuations.tools.Agent;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent in a real JVM: a child java process started with
 * {@code -javaagent:<continuations jar>=io.weft.continuations.testclient} runs the plain test
 * clients with {@code alreadyRewritten()}. The agent jar is built here from this module's
 * compiled classes with the manifest the pom gives the real jar (Premain-Class), so the test
 * runs before {@code package}; its dependencies come from the class path, as documented.
 */
@org.junit.jupiter.api.Timeout(value = 180, unit = TimeUnit.SECONDS)
class AgentTest {
  private static final long CHILD_TIMEOUT_SECONDS = 120;

  @TempDir
  Path temp;

  @Test
  void theAgentRewritesThePlainClientsAsTheyLoadAndTheirSessionsSuspend() throws Exception {
    Path jar = agentJar();
    Child child = java(List.of("-javaagent:" + jar + "=" + SessionRunnerTest.CLIENT),
        AgentChild.class.getName(), "500");
    System.out.println(child.all());
    assertEquals(0, child.exit, child.all());
    assertTrue(child.err.contains("weft agent: rewriting [io.weft.continuations.testclient.]"), child.all());
    assertTrue(child.out.contains("loaded by app"), child.all());
    Matcher m = Pattern.compile("succeeded (\\d+) of 500, right values (\\d+), suspends (\\d+), peak open (\\d+)")
        .matcher(child.out);
    assertTrue(m.find(), child.all());
    assertEquals(500, Integer.parseInt(m.group(1)), child.all());
    assertEquals(500, Integer.parseInt(m.group(2)), child.all());
    assertTrue(Integer.parseInt(m.group(3)) >= 500, "every session suspends on its reads: " + child.all());
    assertTrue(Integer.parseInt(m.group(4)) > 10, "sessions overlap on one worker: " + child.all());
    // The agent reports what cannot suspend, and the runner refuses a task that reaches it.
    assertTrue(child.err.contains("weft agent: cannot run as a continuation: io.weft.continuations.testclient.LambdaTask.run"),
        child.all());
    assertTrue(child.out.contains("lambda task refused: io.weft.continuations.testclient.LambdaTask"), child.all());
    assertTrue(child.out.contains("debug frames: succeeded 20 of 20"), child.all());
    // A representative subset of ClientShapesTest, rewritten by the agent.
    assertTrue(child.out.contains("shape DeepChainShape: same as SYNC"), child.all());
    assertTrue(child.out.contains("shape BridgeGenericShape: same as SYNC"), child.all());
    assertTrue(child.out.contains("shape SessionLockShape: same as SYNC"), child.all());
    assertTrue(refusedOrNamed(child.out, "ReflectionShape", "io.weft.continuations.testclient.shapes.ReflectionShape"),
        child.all());
    assertTrue(refusedOrNamed(child.out, "OutsideLastShape", "io.weft.continuations.testoutside.OutsideReads"),
        child.all());
  }

  /** Refused at load time, or every session failed with NotInstrumentedError naming that class only. */
  private static boolean refusedOrNamed(String out, String shape, String className) {
    return out.contains("shape " + shape + ": refused at load time\n")
        || out.contains("shape " + shape + ": not instrumented, named " + className + "\n");
  }

  @Test
  void theAgentRefusesEachShapeBeforeAnySessionNamingItsChain() throws Exception {
    List<String> args = new ArrayList<>(RefusedShapesTest.SHAPES.keySet());
    Child child = java(List.of("-javaagent:" + agentJar() + "=" + SessionRunnerTest.CLIENT),
        AgentRefusalChild.class.getName(), args.toArray(new String[0]));
    assertEquals(0, child.exit, child.all());
    for (Map.Entry<String, String[]> shape : RefusedShapesTest.SHAPES.entrySet()) {
      String line = "refused " + shape.getKey() + " :: " + shape.getValue()[0] + ": ";
      int at = child.out.indexOf(line);
      assertTrue(at >= 0, child.all());
      assertTrue(child.out.substring(at, child.out.indexOf('\n', at)).contains(": " + shape.getValue()[1] + ". "),
          child.all());
    }
    assertTrue(child.out.contains("sessions opened 0"), child.all());
  }

  @Test
  void withoutTheAgentTheSameMainIsRefusedNamingTheClass() throws Exception {
    Child child = java(List.of(), AgentChild.class.getName(), "5");
    assertNotEquals(0, child.exit, child.all());
    assertTrue(child.err.contains("io.weft.continuations.testclient.LineTesterTask was not rewritten"), child.all());
  }

  @Test
  void theAgentWithoutPackagesStopsTheJvmSayingWhatToGive() throws Exception {
    Child child = java(List.of("-javaagent:" + agentJar()), AgentChild.class.getName(), "1");
    assertNotEquals(0, child.exit, child.all());
    assertTrue(child.err.contains("weft agent: name the packages to rewrite"), child.all());
  }

  /** A jar of this module's classes with the agent's manifest, as maven-jar-plugin makes it. */
  private Path agentJar() throws IOException {
    Path classes = BuildTimeRewriteTest.codeSource(Agent.class);
    Path jar = temp.resolve("continuations-agent.jar");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().putValue("Premain-Class", Agent.class.getName());
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
         Stream<Path> files = Files.walk(classes)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(file)) {
          out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
          Files.copy(file, out);
          out.closeEntry();
        }
      }
    }
    return jar;
  }

  private Child java(List<String> jvmArgs, String main, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main);
    command.addAll(List.of(args));
    Path out = temp.resolve("out-" + System.nanoTime());
    Path err = temp.resolve("err-" + System.nanoTime());
    Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try (OutputStream stdin = process.getOutputStream()) {
      // no input
    }
    if (!process.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
      fail("child JVM still running after " + CHILD_TIMEOUT_SECONDS + " s: " + command + "\n"
          + Files.readString(out, StandardCharsets.UTF_8) + Files.readString(err, StandardCharsets.UTF_8));
    }
    return new Child(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  private record Child(int exit, String out, String err) {
    String all() {
      return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }
}
