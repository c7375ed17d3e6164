package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.weft.load.internal.Durations;
import io.weft.load.internal.Plan;
import io.weft.load.internal.Reporter;
import io.weft.load.testscenario.WatchfulEchoScenario;
import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a run does when the server misbehaves: a failed iteration ends its connection and the
 * next one connects anew, no call is made on a transport known to be closed, a refused connect is
 * retried for the whole run with a reported backoff, and a run in which nothing succeeded exits 3.
 */
class FailureSemanticsTest {
  @TempDir Path dir;

  /**
   * Each of the 5 users fails its 8 iterations and waits a backoff before each of the 7 after its
   * first: 10, 20, 40, 80, 160, 320, then 500 ms (the longest, which the run says once, why it goes
   * slowly). The 8th failure's backoff is never waited (no iteration follows) and is not counted:
   * 35 backoffs, 5 x 1,130 ms in all, whatever the machine's load (review2 B1: 40 were counted).
   */
  @ParameterizedTest
  @ValueSource(strings = {"threads", "continuations:1"})
  void aProtocolViolationEndsTheConnectionAndTheNextIterationConnectsAnew(String mode) throws Exception {
    try (GarbageServer garbage = new GarbageServer()) {
      Runs r = Runs.run(new File(dir.toFile(), "redis"), "redis", "-t", "127.0.0.1:" + garbage.port(),
          "--mode", mode, "-u", "5", "-n", "8");
      assertEquals(3, r.exit, r::toString);
      assertTrue(r.output.contains("no operation succeeded"), r::toString);
      assertTrue(r.output.contains("every PING failed: 40 of 40"), r::toString);
      JsonNode s = r.summary();
      JsonNode errors = s.at("/operations/PING/errors");
      assertEquals(40, errors.path("io.weft.transport.ProtocolViolationException").asLong(), r::toString);
      assertEquals(1, errors.size(), "only protocol violations, no call on a broken client: " + r);
      // Every iteration opened its own connection: the one before failed.
      assertEquals(40, s.at("/operations/connect/count").asLong(), r::toString);
      assertEquals(40, garbage.accepted(), r::toString);
      // Each failed iteration but a user's last was followed by a backoff, doubling as the failures went on.
      String backoffs = s.at("/info/connect backoffs").asText();
      assertTrue(backoffs.startsWith("35 ("), r::toString);
      assertTrue(backoffs.endsWith(", " + Durations.format(5 * 1_130_000_000L) + " in all"), r::toString);
      assertEquals(1, r.output.split(Pattern.quote(Reporter.BACKOFF_AT_CAP), -1).length - 1, r::toString);
    }
  }

  /**
   * A server that accepts and then answers garbage is not hammered: a failed iteration ends its
   * connection and the user waits the backoff (10 ms doubling to 500 ms) before it reconnects, as
   * after a refused connect, though the run has no connect pacing (the redis command's window
   * alone, whose place the garbage's first bytes give back at once). Counts only: every reconnect
   * came after a backoff, and no user connected more often than the backoff schedule allows in
   * the time the whole run took, measured around it (a slow machine only lengthens that time and
   * shortens the count). Without the backoff, 5 users made thousands of connects in 2 s.
   */
  @ParameterizedTest
  @ValueSource(strings = {"threads", "continuations:1"})
  void aServerThatAcceptsThenFailsIsReconnectedToAtTheBackoffsPace(String mode) throws Exception {
    int users = 5;
    try (GarbageServer garbage = new GarbageServer()) {
      long began = System.nanoTime();
      Runs r = Runs.run(new File(dir.toFile(), "garbage-for-a-time"), "redis", "-t", "127.0.0.1:" + garbage.port(),
          "--mode", mode, "-u", Integer.toString(users), "-d", "2s", "-q");
      long took = System.nanoTime() - began;
      assertEquals(3, r.exit, r::toString);
      assertTrue(r.output.contains("connect pacing: none"), r::toString);
      JsonNode s = r.summary();
      long connects = s.at("/operations/connect/count").asLong();
      String info = s.at("/info/connect backoffs").asText();
      long backoffs = info.isEmpty() ? 0L : Long.parseLong(info.substring(0, info.indexOf(' ')));
      assertTrue(connects > users, "every user reconnected at least once: " + r);
      assertTrue(backoffs >= connects - users, backoffs + " backoffs for " + connects + " connects\n" + r);
      long allowed = users * connectsWithin(took);
      assertTrue(connects <= allowed,
          connects + " connects in " + took + " ns, the backoff allows " + allowed + "\n" + r);
    }
  }

  /** The most connects one user can begin in {@code nanos} when it backs off by the schedule after each. */
  private static long connectsWithin(long nanos) {
    long connects = 1;
    long waited = 0;
    for (int failures = 1; ; failures++) {
      waited += Math.min(Plan.BACKOFF_MIN_NANOS << Math.min(failures - 1, 20), Plan.BACKOFF_MAX_NANOS);
      if (waited > nanos) {
        return connects;
      }
      connects++;
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"threads", "continuations:1", "sync"})
  void noCallIsMadeOnATransportThatFailedOrWasClosed(String mode) throws Exception {
    try (GarbageServer garbage = new GarbageServer()) {
      Runs r = Runs.run(new File(dir.toFile(), "watch"), "run", WatchfulEchoScenario.class.getName(),
          "-t", "127.0.0.1:" + garbage.port(), "--mode", mode, "-u", "3", "-n", "10", "-q");
      assertEquals(3, r.exit, r::toString);
      JsonNode s = r.summary();
      assertTrue(s.at("/operations/misuse").isMissingNode(), r::toString);
      assertEquals(30, s.at("/operations/echo/errors/io.weft.transport.ProtocolViolationException").asLong(), r::toString);
      assertEquals(30, s.at("/operations/connect/count").asLong(), r::toString);
    }
  }

  /**
   * In the open model a user whose iteration failed backs off before it takes another arrival,
   * woken early only once nothing is left for it (ArrivalsTest pins that wake): the run ends with every
   * session whole (the wait suspends in continuation mode: no NotInstrumentedError).
   */
  @ParameterizedTest
  @ValueSource(strings = {"threads", "continuations:1"})
  void anOpenModelUserBacksOffAfterAFailedIterationAndTheRunEnds(String mode) throws Exception {
    try (GarbageServer garbage = new GarbageServer()) {
      Runs r = openRun(garbage, "open-garbage", mode, "20", "1s", "2");
      assertFalse(r.output.contains("sessions failed"), r::toString);
      JsonNode s = r.summary();
      assertTrue(s.at("/operations/PING/errors/io.weft.transport.ProtocolViolationException").asLong() > 0, r::toString);
    }
  }

  /** An open-model redis run against {@code garbage} at {@code rate} for {@code duration}, which exits 3. */
  private Runs openRun(GarbageServer garbage, String name, String mode, String rate, String duration, String sessions) {
    Runs r = Runs.run(new File(dir.toFile(), name), "redis", "-t", "127.0.0.1:" + garbage.port(),
        "--mode", mode, "--rate", rate, "-d", duration, "--max-sessions", sessions, "-q");
    assertEquals(3, r.exit, r::toString);
    return r;
  }

  /**
   * In the open model a backlog left at the schedule's end is drained at the backoff's pace, not as
   * fast as the client can reconnect (review3 load14 BUG-1: once the schedule had ended, no backoff
   * was waited at all). One session, 8 arrivals in 100 ms, every iteration failing: the session's
   * backoffs (10, 20, 40, 80 ms, ...) fall behind the schedule, so arrivals queue, and each of its 8
   * iterations but the first comes after a whole backoff: 7 backoffs for 8 connects, 1.13 s in all
   * (the 8th failure's backoff is cut short at once: nothing is left), whatever the machine's load.
   */
  @ParameterizedTest
  @ValueSource(strings = {"threads", "continuations:1"})
  void anOpenModelBacklogLeftAtTheScheduleEndIsDrainedAtTheBackoffsPace(String mode) throws Exception {
    try (GarbageServer garbage = new GarbageServer()) {
      Runs r = openRun(garbage, "open-backlog", mode, "80", "100ms", "1");
      JsonNode s = r.summary();
      assertEquals(8, s.at("/operations/PING/errors/io.weft.transport.ProtocolViolationException").asLong(), r::toString);
      assertEquals(8, s.at("/operations/connect/count").asLong(), r::toString);
      assertEquals(8, garbage.accepted(), r::toString);
      assertEquals("7 (" + Durations.format(Plan.BACKOFF_MIN_NANOS) + " doubling to "
          + Durations.format(Plan.BACKOFF_MAX_NANOS) + "), " + Durations.format(1_130_000_000L) + " in all",
          s.at("/info/connect backoffs").asText(), r::toString);
    }
  }

  @Test
  void aRefusedPortIsRetriedForTheRunsDurationAndTheRunExitsThree() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Runs r = Runs.run(new File(dir.toFile(), "refused"), "redis", "-t", "127.0.0.1:" + port,
        "--mode", "continuations:1", "-u", "5", "-d", "2s", "-q");
    assertEquals(3, r.exit, r::toString);
    assertTrue(r.output.contains("no operation succeeded"), r::toString);
    assertTrue(r.output.contains("every connect failed"), r::toString);
    assertTrue(r.output.contains("connect backoffs: "), r::toString);
    JsonNode s = r.summary();
    // Retried for the run's two seconds, not given up at the first refusal: with a backoff of
    // at most 500 ms each user tries at least four times.
    assertTrue(s.at("/seconds").asDouble() >= 2.0, r::toString);
    long refused = s.at("/operations/connect/errors/java.net.ConnectException").asLong();
    assertTrue(refused >= 5 * 4, r::toString);
    assertEquals(0, s.at("/operations/connect/count").asLong(), r::toString);
    assertFalse(r.output.contains("sessions failed"), r::toString);
    // The refusals halved the redis command's window, a second apart at the least: to 64, and to its
    // least, 32, if a refusal came a second after the first within the run (WindowSummaryTest pins
    // the line on a clock moved by hand); nothing was heard from to grow it back.
    String window = s.at("/info/connect window").asText();
    assertTrue(window.contains("; 128 at first, 128 at the largest, ") && window.endsWith(", grew back 0 times")
        && (window.contains(" 64 at the smallest, 64 at the end, halved 1 time,")
            || window.contains(" 32 at the smallest, 32 at the end, halved 2 times,")), window + "\n" + r);
  }

  @Test
  void aRunInWhichSomethingSucceededExitsZero() throws Exception {
    Runs r = Runs.run(new File(dir.toFile(), "ok"), "line", "--in-vm", "--mode", "threads", "-u", "2", "-n", "5", "-q");
    assertEquals(0, r.exit, r::toString);
  }
}
