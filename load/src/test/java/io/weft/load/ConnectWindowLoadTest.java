package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.weft.load.testscenario.EchoScenario;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * weft-load's users take a place in the run's connect window (at most N connected and not yet
 * heard from) before a paced connect, as the runner's sessions do: the place comes back with the
 * first reply, and a place held 1 s without word from the server is freed, so that a server that
 * answers only once enough users are there slows the run but never stalls it.
 */
class ConnectWindowLoadTest {
  @TempDir Path dir;

  /**
   * The server answers at once; each user keeps its connection 1.5 s between its two iterations.
   * Its first reply gives its place back: no place is held to the 1 s bound. (A user that gave it
   * back only at its close would hold it 1.5 s, and the window would free it unheard.)
   */
  @ParameterizedTest
  @ValueSource(strings = {"threads", "continuations:1"})
  void theFirstReplyGivesAUsersPlaceBack(String mode) throws Exception {
    try (HoldingEchoServer echo = new HoldingEchoServer(0)) {
      Runs r = Runs.run(new File(dir.toFile(), "early"), "run", EchoScenario.class.getName(), "-t", echo.target(),
          "--mode", mode, "-u", "6", "-n", "2", "--think", "1500ms", "--connect-window", "2", "--timeout", "30s", "-q");
      assertEquals(0, r.exit, r::toString);
      JsonNode s = r.summary();
      assertEquals(12, s.at("/operations/say/count").asLong(), r::toString);
      assertEquals(0, freedUnheard(s), r::toString);
    }
  }

  /**
   * The server answers no one until six users are connected: through a window of two, at least
   * four places must be freed unheard for the run to end, and it ends whole.
   */
  @ParameterizedTest
  @ValueSource(strings = {"threads", "continuations:1"})
  void aWindowTheServerDoesNotAnswerFreesAPlaceAfterASecond(String mode) throws Exception {
    try (HoldingEchoServer echo = new HoldingEchoServer(6)) {
      Runs r = Runs.run(new File(dir.toFile(), "late"), "run", EchoScenario.class.getName(), "-t", echo.target(),
          "--mode", mode, "-u", "6", "-n", "1", "--connect-window", "2", "--timeout", "30s", "-q");
      assertEquals(0, r.exit, r::toString);
      JsonNode s = r.summary();
      assertEquals(6, s.at("/operations/say/count").asLong(), r::toString);
      assertTrue(freedUnheard(s) >= 4, r::toString);
    }
  }

  private static long freedUnheard(JsonNode summary) {
    String info = summary.at("/info/connect window").asText();
    Matcher m = Pattern.compile("(\\d+) places freed without word from the server").matcher(info);
    assertTrue(m.find(), "no window report: " + info);
    return Long.parseLong(m.group(1));
  }

  /** Echoes lines, but none before it has accepted {@code quorum} connections. */
  static final class HoldingEchoServer implements AutoCloseable {
    private final ServerSocket listener;
    private final int quorum;
    private final List<Socket> accepted = new ArrayList<>();
    private final Thread acceptor;

    HoldingEchoServer(int quorum) throws IOException {
      this.quorum = quorum;
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      acceptor = new Thread(this::accept, "holding-echo");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    String target() {
      return "127.0.0.1:" + listener.getLocalPort();
    }

    private void accept() {
      try {
        for (;;) {
          Socket s = listener.accept();
          synchronized (accepted) {
            accepted.add(s);
            accepted.notifyAll();
          }
          Thread t = new Thread(() -> echo(s), "holding-echo-connection");
          t.setDaemon(true);
          t.start();
        }
      } catch (IOException e) {
        // Closed.
      }
    }

    private void echo(Socket s) {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
        OutputStream out = s.getOutputStream();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          synchronized (accepted) {
            while (accepted.size() < quorum) {
              accepted.wait();
            }
          }
          out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        // The connection ended.
      }
    }

    @Override
    public void close() throws Exception {
      listener.close();
      acceptor.join(10_000);
      synchronized (accepted) {
        for (Socket s : accepted) {
          s.close();
        }
      }
    }
  }
}
