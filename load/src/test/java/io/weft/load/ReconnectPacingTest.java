package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.weft.load.testscenario.OneShotEchoScenario;
import io.weft.testsupport.EchoServer;
import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which connects take a turn of the run's connect pacing: each user's first, and every reconnect
 * after a failure (the bursts that overflow a listen queue), but not the reconnect after a
 * connection the scenario closed cleanly. That one follows the server's pace, so a
 * no-keep-alive run is not capped at the connect rate.
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
