package io.weft.protocols.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.continuations.ConnectWindow;
import io.weft.continuations.RunResult;
import io.weft.protocols.SessionMode;
import io.weft.transport.Timeout;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each server of a run has its own connect window, as it has its own listen queue: a server that
 * says nothing holds its own sessions' places, never the others'. Two servers, sessions round
 * robin, the first to the silent one: the silent server speaks only once the other has accepted
 * all {@value #PER_SERVER} of its sessions, and that one says "go" only then too. With a window
 * of {@value #PER_SERVER} for each server, all of both servers' sessions connect and the run ends
 * whole at once. With one window for the run (the old code), the silent server's sessions take
 * places they hold for the 10-minute bound, the other server never gets all of its sessions, and
 * every session fails at the 20 s read timeout: the outcome depends on the windows alone, not on
 * how fast the machine is.
 */
class ConnectWindowPerAddressTest {
  private static final int PER_SERVER = 4;
  /** Far above what a correct run needs: a run that stalls fails at it. */
  private static final Timeout TIMEOUT = Timeout.of(20, TimeUnit.SECONDS);

  static Stream<Arguments> modes() {
    return Stream.of(
        Arguments.of("THREADS", (Supplier<SessionMode>) SessionMode::threads),
        Arguments.of("CONTINUATIONS(1)/MINA", (Supplier<SessionMode>) () -> SessionMode.continuations(1)),
        Arguments.of("CONTINUATIONS(1)/Netty", (Supplier<SessionMode>) () -> SessionMode.continuationsOverNetty(1)),
        Arguments.of("VIRTUAL_THREADS", (Supplier<SessionMode>) SessionMode::virtualThreads));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void aSilentServerHoldsOnlyItsOwnSessionsPlaces(String name, Supplier<SessionMode> modes) throws Exception {
    try (SessionMode mode = modes.get(); GoServer other = new GoServer(null); GoServer silent = new GoServer(other)) {
      assumeTrue(mode.available(), mode::unavailableReason);
      RunResult<String> result = mode.runWith(ConnectWindowRunTest.Gated.class, silent.address(), 2 * PER_SERVER,
          TIMEOUT, b -> b.addresses(List.of(silent.address(), other.address()))
              .connectWindow(ConnectWindow.of(PER_SERVER, Duration.ofMinutes(10))), Boolean.FALSE);
      System.out.println(name + ": " + result + ", " + result.connectWindow().orElseThrow());
      assertTrue(result.allSucceeded(), result + ": " + result.failures());
      ConnectWindow.Report report = result.connectWindow().orElseThrow();
      assertEquals(2, report.addresses(), report.toString());
      assertEquals(2 * PER_SERVER, report.entered(), report.toString());
      assertEquals(0, report.freedUnheard(), report.toString());
      assertTrue(report.toString().startsWith("connect window 4 for each of 2 addresses: "), report.toString());
    }
  }

  /**
   * Accepts on loopback and says "go" to every connection once it is open: a server without a
   * gate once it has {@value #PER_SERVER} connections; one with a gate once the gate is open.
   */
  static final class GoServer implements AutoCloseable {
    private final ServerSocket listener;
    private final List<Socket> accepted = new ArrayList<>();
    private final List<GoServer> waiting = new ArrayList<>();
    private final Thread acceptor;
    /** Guarded by accepted. */
    private boolean open;

    GoServer(GoServer gate) throws IOException {
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      if (gate != null) {
        synchronized (gate.accepted) {
          gate.waiting.add(this);
        }
      }
      boolean gated = gate != null;
      acceptor = new Thread(() -> {
        try {
          for (;;) {
            Socket s = listener.accept();
            List<GoServer> toOpen = List.of();
            synchronized (accepted) {
              accepted.add(s);
              if (open) {
                go(s);
              } else if (!gated && accepted.size() == PER_SERVER) {
                openLocked();
                toOpen = new ArrayList<>(waiting);
              }
            }
            for (GoServer g : toOpen) {
              g.open();
            }
          }
        } catch (IOException e) {
          // Closed.
        }
      }, "go-server");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    void open() throws IOException {
      synchronized (accepted) {
        openLocked();
      }
    }

    /** Under accepted's lock. */
    private void openLocked() throws IOException {
      open = true;
      for (Socket each : accepted) {
        go(each);
      }
    }

    private static void go(Socket s) throws IOException {
      s.getOutputStream().write("go\r\n".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
    }

    InetSocketAddress address() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
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
