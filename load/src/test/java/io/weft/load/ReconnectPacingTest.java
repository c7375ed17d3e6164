package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.weft.load.testscenario.OneShotEchoScenario;
import io.weft.testsupport.EchoServer;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which connects take a turn of the run's connect pacing: each user's first, and every reconnect
 * after a failure (the bursts that overflow a listen queue), but not the reconnect after a
 * connection the scenario closed cleanly. That one follows the server's pace, so a
 * no-keep-alive run is not capped at the connect rate, nor held back by the connect window.
 */
class ReconnectPacingTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"threads", "continuations:1"})
  void aReconnectAfterACleanCloseIsNotPaced(String mode) throws Exception {
    // At one connect a second, 2 users x 20 one-shot iterations would take 38 s if every
    // reconnect were paced; the burst of 2 lets both first connects through at once.
    JsonNode s = oneShotEchoRun("clean", mode, 2, 20, "--connect-rate", "1", "--connect-burst", "2");
    assertEquals("2", pacedConnects(s), s::toString);
  }

  /**
   * A reconnect after a clean close takes no place in the connect window either: with a window
   * of one, three users' first connects may wait for a place (two of them at most), but none of
   * their 87 reconnects does, though each user's reconnect comes while the others are connected
   * and between their connects and replies. (A window taken by every connect, as a cold ramp's
   * is, would make a {@code Connection: close} run wait at every request for a place that only a
   * reply gives back.)
   */
  @ParameterizedTest
  @ValueSource(strings = {"threads", "continuations:1"})
  void aReconnectAfterACleanCloseTakesNoPlaceInTheWindow(String mode) throws Exception {
    JsonNode s = oneShotEchoRun("window", mode, 3, 30,
        "--connect-rate", "0", "--connect-window", "1", "--connect-window-hold", "10m");
    String window = s.at("/info/connect window").asText();
    Matcher m = Pattern.compile("; (\\d+) connects waited for a place").matcher(window);
    assertTrue(m.find(), "no window report: " + window);
    assertTrue(Long.parseLong(m.group(1)) <= 2L, s::toString);
  }

  /**
   * Runs {@code users} users of {@link OneShotEchoScenario}, {@code iterations} each, against an
   * echo server of its own with {@code flags}, and returns the summary of the run, which must
   * have succeeded with one connect per iteration.
   */
  private JsonNode oneShotEchoRun(String name, String mode, int users, int iterations, String... flags)
      throws Exception {
    try (EchoServer echo = EchoServer.tcp()) {
      String target = "127.0.0.1:" + ((InetSocketAddress) echo.address()).getPort();
      List<String> args = new ArrayList<>(List.of("run", OneShotEchoScenario.class.getName(), "-t", target,
          "--mode", mode, "-u", Integer.toString(users), "-n", Integer.toString(iterations), "-q"));
      args.addAll(List.of(flags));
      Runs r = Runs.run(new File(dir.toFile(), name), args.toArray(new String[0]));
      assertEquals(0, r.exit, r::toString);
      JsonNode s = r.summary();
      assertEquals((long) users * iterations, s.at("/operations/say/count").asLong(), r::toString);
      assertEquals((long) users * iterations, s.at("/operations/connect/count").asLong(), r::toString);
      return s;
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"threads", "continuations:1"})
  void aReconnectAfterAFailureIsPaced(String mode) throws Exception {
    try (GarbageServer garbage = new GarbageServer()) {
      Runs r = Runs.run(new File(dir.toFile(), "failing"), "run", OneShotEchoScenario.class.getName(),
          "-t", "127.0.0.1:" + garbage.port(), "--mode", mode, "-u", "2", "-n", "10",
          "--connect-rate", "100000", "--connect-burst", "2", "-q");
      assertEquals(3, r.exit, r::toString);
      JsonNode s = r.summary();
      assertEquals(20, s.at("/operations/connect/count").asLong(), r::toString);
      assertEquals("20", pacedConnects(s), r::toString);
    }
  }

  private static String pacedConnects(JsonNode summary) {
    String info = summary.at("/info/paced connects").asText();
    int space = info.indexOf(' ');
    return space < 0 ? info : info.substring(0, space);
  }
}
