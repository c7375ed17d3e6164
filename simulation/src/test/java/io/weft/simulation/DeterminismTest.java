package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.simulation.clients.EchoClient;
import io.weft.testsupport.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The same seed gives the same run, bit for bit, in one JVM and in two; another seed another. */
class DeterminismTest {
  private static final Pattern SUMMARY = Pattern.compile("(simulation seed=\\S+ sessions=\\d+ events=\\d+ log-sha256=[0-9a-f]{64} virtual=\\S+) wall=\\S+");

  @TempDir
  Path dir;

  private static String identity(String report) {
    Matcher m = SUMMARY.matcher(report);
    assertTrue(m.find(), report);
    return m.group(1);
  }

  private static SimulationResult<String> run(long seed, boolean keepLog) {
    Simulation.Builder b = Simulation.builder();
    return DeterminismMain.flaky(seed).run(EchoClient.class, 200, DeterminismMain.SERVER, 10);
  }

  @Test
  void sameSeedSameSha256TwiceInOneJvm() {
    SimulationResult<String> first = run(42, false);
    SimulationResult<String> second = run(42, false);
    assertEquals(identity(first.summary()), identity(second.summary()));
    // the flaky link does fail some sessions, and the same ones each time
    assertTrue(!first.allSucceeded() && first.failures().size() < 200, first.report());
    assertEquals(first.failures().stream().map(SessionOutcome::index).toList(),
        second.failures().stream().map(SessionOutcome::index).toList());
  }

  @Test
  void sameSeedSameSha256InTwoJvms() throws Exception {
    ChildJvm.Result one = ChildJvm.run(dir, Duration.ofMinutes(2), List.of(), DeterminismMain.class.getName(), "42");
    ChildJvm.Result two = ChildJvm.run(dir, Duration.ofMinutes(2), List.of("-XX:+UseSerialGC", "-Xint"),
        DeterminismMain.class.getName(), "42");
    assertEquals(0, one.exit(), one.toString());
    assertEquals(0, two.exit(), two.toString());
    assertEquals(identity(one.out()), identity(two.out()));
    assertEquals(identity(one.out()), identity(run(42, false).summary()));
  }

  @Test
  void differentSeedsGiveDifferentOrders() {
    List<String> a = order(1);
    List<String> b = order(2);
    assertEquals(a.size() > 0, true);
    assertNotEquals(a, b);
    assertEquals(a, order(1));
  }

  /** The order in which sessions ran, from the kept log. */
  private static List<String> order(long seed) {
    Simulation sim = Simulation.builder()
        .seed(seed)
        .instrument("io.weft.simulation.clients", "io.weft.simulation.servers")
        .server(DeterminismMain.SERVER, Server.of(io.weft.simulation.servers.EchoServer.class))
        .keepLog(true)
        .build();
    // a perfect link: every difference in order comes from the seeded scheduling decisions
    SimulationResult<String> result = sim.run(EchoClient.class, 20, DeterminismMain.SERVER, 3);
    assertTrue(result.allSucceeded(), result.report());
    return result.logLines().stream().filter(l -> l.contains(" run session=")).map(l -> l.substring(l.indexOf(" run ")))
        .collect(Collectors.toList());
  }
}
