package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testing.AgentChild;
import io.weft.continuations.testing.AgentRefusalChild;
import io.weft.continuations.tools.Agent;
import io.weft.testsupport.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent in a real JVM: a child java process started with
 * {@code -javaagent:<continuations jar>=io.weft.continuations.testclient} runs the plain test
 * clients with {@code alreadyRewritten()}. The agent jar is built here from this module's
 * compiled classes with the manifest the pom gives the real jar (Premain-Class), so the test
 * runs before {@code package}; its dependencies come from the class path, as documented.
 */
class AgentTest {
  private static final Duration CHILD_LIMIT = Duration.ofSeconds(120);

  @TempDir
  Path temp;

  @Test
  void theAgentRewritesThePlainClientsAsTheyLoadAndTheirSessionsSuspend() throws Exception {
    Path jar = agentJar();
    ChildJvm.Result child = java(List.of("-javaagent:" + jar + "=" + SessionRunnerTest.CLIENT),
        AgentChild.class.getName(), "500");
    System.out.println(child.toString());
    assertEquals(0, child.exit(), child.toString());
    assertTrue(child.err().contains("weft agent: rewriting [io.weft.continuations.testclient.]"), child.toString());
    assertTrue(child.out().contains("loaded by app"), child.toString());
    Matcher m = Pattern.compile("succeeded (\\d+) of 500, right values (\\d+), suspends (\\d+), peak open (\\d+)")
        .matcher(child.out());
    assertTrue(m.find(), child.toString());
    assertEquals(500, Integer.parseInt(m.group(1)), child.toString());
    assertEquals(500, Integer.parseInt(m.group(2)), child.toString());
    assertTrue(Integer.parseInt(m.group(3)) >= 500, "every session suspends on its reads: " + child.toString());
    assertTrue(Integer.parseInt(m.group(4)) > 10, "sessions overlap on one worker: " + child.toString());
    // The agent reports what cannot suspend, and the runner refuses a task that reaches it.
    assertTrue(child.err().contains("weft agent: cannot run as a continuation: io.weft.continuations.testclient.LambdaTask.run"),
        child.toString());
    assertTrue(child.out().contains("lambda task refused: io.weft.continuations.testclient.LambdaTask"), child.toString());
    assertTrue(child.out().contains("debug frames: succeeded 20 of 20"), child.toString());
    // A representative subset of ClientShapesTest, rewritten by the agent, each in continuations(1) and (2).
    assertTrue(child.out().contains("shape DeepChainShape: same as SYNC"), child.toString());
    assertTrue(child.out().contains("shape BridgeGenericShape: same as SYNC"), child.toString());
    assertTrue(child.out().contains("shape SessionLockShape: same as SYNC"), child.toString());
    for (String threadLocals : List.of("ThreadLocalShape", "RequestContextShape", "InheritableShape",
        "LibraryContextShape", "SynchronizedShape", "SynchronizedThrowingShape", "LambdaShape", "MethodRefShape",
        "FunctionShape", "JdkInterfacesShape")) {
      assertTrue(child.out().contains("shape " + threadLocals + ": same as SYNC"), child.toString());
    }
    assertTrue(child.out().contains("shape ProxyShape: not instrumented, named jdk.proxy"), child.toString());
    assertTrue(refusedOrNamed(child.out(), "ReflectionShape", "io.weft.continuations.testclient.shapes.ReflectionShape"),
        child.toString());
    assertTrue(refusedOrNamed(child.out(), "OutsideLastShape", "io.weft.continuations.testoutside.OutsideReads"),
        child.toString());
  }

  /** Refused at load time, or every session failed with NotInstrumentedError naming that class only. */
  private static boolean refusedOrNamed(String out, String shape, String className) {
    return out.contains("shape " + shape + ": refused at load time\n")
        || out.contains("shape " + shape + ": not instrumented, named " + className + "\n");
  }

  @Test
  void theAgentRefusesEachShapeBeforeAnySessionNamingItsChain() throws Exception {
    List<String> args = new ArrayList<>(RefusedShapesTest.SHAPES.keySet());
    ChildJvm.Result child = java(List.of("-javaagent:" + agentJar() + "=" + SessionRunnerTest.CLIENT),
        AgentRefusalChild.class.getName(), args.toArray(new String[0]));
    assertEquals(0, child.exit(), child.toString());
    for (Map.Entry<String, String[]> shape : RefusedShapesTest.SHAPES.entrySet()) {
      String line = "refused " + shape.getKey() + " :: " + shape.getValue()[0] + ": ";
      int at = child.out().indexOf(line);
      assertTrue(at >= 0, child.toString());
      assertTrue(child.out().substring(at, child.out().indexOf('\n', at)).contains(": " + shape.getValue()[1] + ". "),
          child.toString());
    }
    assertTrue(child.out().contains("sessions opened 0"), child.toString());
  }

  @Test
  void withoutTheAgentTheSameMainIsRefusedNamingTheClass() throws Exception {
    ChildJvm.Result child = java(List.of(), AgentChild.class.getName(), "5");
    assertNotEquals(0, child.exit(), child.toString());
    assertTrue(child.err().contains("io.weft.continuations.testclient.LineTesterTask was not rewritten"), child.toString());
  }

  @Test
  void theAgentWithoutPackagesStopsTheJvmSayingWhatToGive() throws Exception {
    ChildJvm.Result child = java(List.of("-javaagent:" + agentJar()), AgentChild.class.getName(), "1");
    assertNotEquals(0, child.exit(), child.toString());
    assertTrue(child.err().contains("weft agent: name the packages to rewrite"), child.toString());
  }

  private Path agentJar() throws IOException {
    return ChildJvm.agentJar(Agent.class, temp);
  }

  private ChildJvm.Result java(List<String> jvmArgs, String main, String... args) throws Exception {
    return ChildJvm.run(temp, CHILD_LIMIT, jvmArgs, main, args);
  }
}
