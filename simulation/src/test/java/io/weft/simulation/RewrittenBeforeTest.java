package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.NotInstrumentableException;
import io.weft.continuations.tools.Agent;
import io.weft.continuations.tools.Rewrite;
import io.weft.simulation.prerewritten.TimedEcho;
import io.weft.simulation.prerewritten.TimedEchoMain;
import io.weft.testsupport.ChildJvm;
import io.weft.simulation.servers.EchoServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulation's redirects are its loader's: a class the Rewrite tool rewrote before (marked,
 * so defined as it is) is refused with the reason, and the same class as compiled runs on the
 * virtual clock.
 */
class RewrittenBeforeTest {
  private static final String PACKAGE = "io.weft.simulation.prerewritten";

  private static Simulation.Builder simulation(ClassLoader parent) {
    return Simulation.builder()
        .parentClassLoader(parent)
        .instrument(PACKAGE, "io.weft.simulation.servers")
        .link(Link.of(Latency.fixed(50, TimeUnit.MILLISECONDS)))
        .server(DeterminismMain.SERVER, Server.of(EchoServer.class));
  }

  @Test
  void theClassAsCompiledTimesTheRoundTripInVirtualTime() {
    SimulationResult<Long> result = simulation(RewrittenBeforeTest.class.getClassLoader()).build()
        .run(TimedEcho.class, 2, DeterminismMain.SERVER);
    assertTrue(result.allSucceeded(), result.report());
    for (SessionOutcome<Long> o : result.outcomes()) {
      assertEquals(TimeUnit.MILLISECONDS.toNanos(100), o.value());
    }
  }

  @Test
  void underTheAgentTheSimulationsLoaderRewritesFromCompiledBytes(@TempDir Path temp) throws Exception {
    Path agent = ChildJvm.agentJar(Agent.class, temp);
    ChildJvm.Result child = ChildJvm.run(temp, Duration.ofSeconds(120), List.of("-javaagent:" + agent + "=" + PACKAGE),
        TimedEchoMain.class.getName());
    assertEquals(0, child.exit(), child.toString());
    assertTrue(child.err().contains("weft agent: rewriting [" + PACKAGE + ".]"), child.toString());
    assertTrue(child.out().contains("all succeeded true"), child.toString());
    // The clock read in the session is the virtual one: exactly the round trip on a 50 ms link.
    assertEquals(2, Pattern.compile("round trip nanos 100000000\\R").matcher(child.out()).results().count(),
        child.toString());
  }

  @Test
  void theRewriteToolsOutputIsRefusedWithTheReason(@TempDir Path out) throws Exception {
    Path classes = Path.of(TimedEcho.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = Rewrite.run(new ArrayList<>(List.of("--classes", classes.toString(), "--packages", PACKAGE,
          "--output", out.toString())), System.out, e);
    }
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
    String entry = PACKAGE.replace('.', '/') + "/TimedEcho.class";
    assertFalse(Arrays.equals(Files.readAllBytes(classes.resolve(entry)), Files.readAllBytes(out.resolve(entry))),
        "the tool rewrote it");
    // A loader that finds the tool's output first, as a class path with it in front would.
    ClassLoader toolOutputFirst = new ClassLoader(RewrittenBeforeTest.class.getClassLoader()) {
      @Override
      public URL getResource(String name) {
        Path p = out.resolve(name);
        if (name.startsWith(PACKAGE.replace('.', '/') + "/") && Files.isRegularFile(p)) {
          try {
            return p.toUri().toURL();
          } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
          }
        }
        return super.getResource(name);
      }
    };
    Simulation sim = simulation(toolOutputFirst).build();
    NotInstrumentableException e = assertThrows(NotInstrumentableException.class,
        () -> sim.run(TimedEcho.class, 1, DeterminismMain.SERVER));
    assertTrue(e.getMessage().contains("was rewritten before the simulation loaded it"), e.getMessage());
    assertTrue(e.getMessage().contains("System.nanoTime (line 13)"), e.getMessage());
    assertTrue(e.getMessage().contains("TimedEcho.run"), e.getMessage());
  }
}
