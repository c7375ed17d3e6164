package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.weft.testsupport.EchoServer;
import java.io.File;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A user scenario (a class outside Weft's packages) and the built-in line scenario run in every
 * mode, closed and open, against a real echo server on loopback TCP; the counts are exact.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ModesTest {
  private EchoServer echo;
  private String target;
  @TempDir Path dir;

  @BeforeAll
  void start() throws Exception {
    echo = EchoServer.tcp();
    target = "127.0.0.1:" + ((java.net.InetSocketAddress) echo.address()).getPort();
  }

  @AfterAll
  void stop() {
    echo.close();
  }

  private static void assumeAvailable(String mode) {
    Assumptions.assumeTrue(!mode.equals("virtual-threads") || Runtime.version().feature() >= 21,
        "virtual threads need JDK 21+");
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "threads", "continuations:1", "continuations:2", "virtual-threads"})
  void closedModelRunsEachUserItsIterationsInEveryMode(String mode) throws Exception {
    assumeAvailable(mode);
    Runs r = Runs.run(new File(dir.toFile(), "closed"), "run", "io.weft.load.testscenario.EchoScenario",
        "-t", target, "--mode", mode, "-u", "4", "-n", "5", "-p", "lines=3", "-q");
    assertEquals(0, r.exit, r::toString);
    JsonNode s = r.summary();
    assertEquals(4 * 5 * 3, s.at("/operations/say/count").asLong(), r::toString);
    assertEquals(0, s.at("/errors").asLong(), r::toString);
    assertEquals("closed", s.at("/model").asText());
  }

  @ParameterizedTest
  @ValueSource(strings = {"sync", "threads", "continuations:1", "virtual-threads"})
  void openModelRunsExactlyTheScheduledArrivalsInEveryMode(String mode) throws Exception {
    assumeAvailable(mode);
    Runs r = Runs.run(new File(dir.toFile(), "open"), "line", "-t", target, "--mode", mode,
        "--stage", "500ms:0->200", "--stage", "500ms:200", "--max-sessions", "3", "-q");
    assertEquals(0, r.exit, r::toString);
    JsonNode s = r.summary();
    // 0->200/s over 0.5 s is 50 arrivals, 200/s over 0.5 s another 100.
    assertEquals(150, s.at("/operations/echo/count").asLong(), r::toString);
    assertEquals("open", s.at("/model").asText());
    assertTrue(s.at("/operations/echo/serviceNanos/count").asLong() == 150, r::toString);
  }

  @ParameterizedTest
  @ValueSource(strings = {"threads", "continuations:1"})
  void closedModelForATimeWithThinkTimeStartsNoMoreIterationsThanTheThinkTimeAllows(String mode) throws Exception {
    Runs r = Runs.run(new File(dir.toFile(), "think"), "line", "-t", target, "--mode", mode,
        "-u", "3", "-d", "400ms", "--think", "100ms", "-q");
    assertEquals(0, r.exit, r::toString);
    long count = r.summary().at("/operations/echo/count").asLong();
    // Each user's iterations after its first start at least one think time apart, and none
    // starts after the 400 ms: at most 1 + 400/100 each.
    assertTrue(count >= 3 && count <= 3 * 5, r::toString);
  }

  @ParameterizedTest
  @ValueSource(strings = {"threads", "continuations:1"})
  void warmUpIterationsRunButAreNotRecordedAndTheDurationCountsAfterThem(String mode) throws Exception {
    long before = echo.linesEchoed();
    Runs r = Runs.run(new File(dir.toFile(), "warmup"), "line", "-t", target, "--mode", mode,
        "-u", "2", "--warmup", "1s", "-d", "200ms", "--think", "50ms", "-q");
    assertEquals(0, r.exit, r::toString);
    long recorded = r.summary().at("/operations/echo/count").asLong();
    long sent = echo.linesEchoed() - before;
    assertEquals("1.00s", r.summary().at("/info/warm-up").asText(), r::toString);
    // Recorded: per user at most the one exchange under way when the window opened, and the
    // 1 + 200/50 iterations it can start in the 200 ms window; a slow machine only lowers that.
    // (Which exchanges fall in the warm-up, exactly: MeasuredWindowTest, in a manual clock.)
    assertTrue(recorded <= 2 * 6 && recorded <= sent, r::toString);
    // Users start no iteration once 200 ms of the window have passed, so it lasts at least that.
    assertTrue(r.summary().at("/seconds").asDouble() >= 0.2, r::toString);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void continuationsOfKRunTheUsersOnKEventLoopsOverTcp(int k) throws Exception {
    // One connection per iteration: Netty hands each new channel to the next loop in turn.
    Runs r = Runs.run(new File(dir.toFile(), "loops"), "run", "io.weft.load.testscenario.OneShotEchoScenario",
        "-t", target, "--mode", "continuations:" + k, "-u", "4", "-n", "5", "--connect-rate", "0", "-q");
    assertEquals(0, r.exit, r::toString);
    java.util.Set<String> loops = new java.util.TreeSet<>();
    r.summary().at("/operations").fieldNames().forEachRemaining(op -> {
      if (op.startsWith("on_weft-netty-")) {
        loops.add(op);
      }
    });
    assertEquals(k, loops.size(), r::toString);
  }

  @org.junit.jupiter.api.Test
  void aScenarioThatWaitsThroughALambdaFailsTheRunInContinuationModeNamingTheFrame() throws Exception {
    // An echo that answers 300 ms late: each read must wait, so it would suspend through the JDK
    // frame that calls the lambda (a read that finds its data already there would just return).
    try (EchoServer slow = EchoServer.builder().delay(300, TimeUnit.MILLISECONDS).startTcp()) {
      String slowTarget = "127.0.0.1:" + ((java.net.InetSocketAddress) slow.address()).getPort();
      java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
      java.io.PrintStream saved = System.err;
      Runs r;
      System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
      try {
        r = Runs.run(new File(dir.toFile(), "lambda"), "run", "io.weft.load.testscenario.LambdaScenario",
            "-t", slowTarget, "--mode", "continuations:1", "-u", "2", "-n", "1", "-q");
      } finally {
        System.setErr(saved);
      }
      // Refused before it starts where the loader's analysis sees the chain, or failed by the
      // session that meets the lambda's frame: never a clean exit with wrong figures.
      String said = r.output + err.toString(java.nio.charset.StandardCharsets.UTF_8);
      assertEquals(3, r.exit, said);
      assertTrue(said.contains("LambdaScenario"), said);
      assertTrue(said.contains("cannot run as continuations"), said);
      // The same scenario runs on threads, where a lambda is no obstacle.
      Runs threads = Runs.run(new File(dir.toFile(), "lambda-threads"), "run", "io.weft.load.testscenario.LambdaScenario",
          "-t", slowTarget, "--mode", "threads", "-u", "2", "-n", "1", "-q");
      assertEquals(0, threads.exit, threads::toString);
      assertEquals(0, threads.summary().at("/errors").asLong(), threads::toString);
    }
  }
}
