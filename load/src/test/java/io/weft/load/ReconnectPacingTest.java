package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.weft.load.testscenario.OneShotEchoScenario;
import io.weft.testsupport.EchoServer;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Path;
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
    try (EchoServer echo = EchoServer.tcp()) {
      String target = "127.0.0.1:" + ((InetSocketAddress) echo.address()).getPort();
      // At one connect a second, 2 users x 20 one-shot iterations would take 38 s if every
      // reconnect were paced; the burst of 2 lets both first connects through at once.
      Runs r = Runs.run(new File(dir.toFile(), "clean"), "run", OneShotEchoScenario.class.getName(), "-t", target,
          "--mode", mode, "-u", "2", "-n", "20", "--connect-rate", "1", "--connect-burst", "2", "-q");
      assertEquals(0, r.exit, r::toString);
      JsonNode s = r.summary();
      assertEquals(40, s.at("/operations/say/count").asLong(), r::toString);
      assertEquals(40, s.at("/operations/connect/count").asLong(), r::toString);
      assertEquals("2", pacedConnects(s), r::toString);
    }
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
    try (EchoServer echo = EchoServer.tcp()) {
      String target = "127.0.0.1:" + ((InetSocketAddress) echo.address()).getPort();
      Runs r = Runs.run(new File(dir.toFile(), "window"), "run", OneShotEchoScenario.class.getName(), "-t", target,
          "--mode", mode, "-u", "3", "-n", "30", "--connect-rate", "0", "--connect-window", "1",
          "--connect-window-hold", "10m", "-q");
      assertEquals(0, r.exit, r::toString);
      JsonNode s = r.summary();
      assertEquals(90, s.at("/operations/say/count").asLong(), r::toString);
      assertEquals(90, s.at("/operations/connect/count").asLong(), r::toString);
      String window = s.at("/info/connect window").asText();
      Matcher m = Pattern.compile("; (\\d+) connects waited for a place").matcher(window);
      assertTrue(m.find(), "no window report: " + window);
      assertTrue(Long.parseLong(m.group(1)) <= 2L, r::toString);
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
