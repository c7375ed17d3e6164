package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.LineTesterTask;
import io.weft.continuations.testclient.WhoAnswersTask;
import io.weft.continuations.testing.PipeConnector;
import io.weft.continuations.testing.PipeEchoServer;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SessionRunner.Builder#addresses}: sessions spread round robin over several real
 * servers, in every mode. Three loopback TCP servers on 127.0.0.1, 127.0.0.2 and 127.0.0.3
 * each answer with their own name, so every session's answer tells where it connected.
 */
class SessionRunnerAddressesTest {
  private static final Timeout FIVE_SECONDS = Timeout.of(5, TimeUnit.SECONDS);

  private final List<NamingServer> servers = new ArrayList<>();

  @AfterEach
  void stop() throws IOException {
    for (NamingServer server : servers) {
      server.close();
    }
  }

  private List<SocketAddress> startServers(int count) throws IOException {
    List<SocketAddress> addresses = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      NamingServer server = new NamingServer(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) i}));
      servers.add(server);
      addresses.add(server.address());
    }
    return addresses;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("io.weft.continuations.SessionRunnerTest#modes")
  void sessionIConnectsToAddressIModuloCount(Mode mode) throws Exception {
    List<SocketAddress> addresses = startServers(3);
    int sessions = 20;
    // In CONTINUATIONS the blocking socket connector blocks its worker: fine for checking where
    // each session goes; the suspending case is the pipe test below.
    try (SocketConnector sockets = new SocketConnector();
        SessionRunner runner = SessionRunner.builder().mode(mode).connector(sockets)
            .addresses(addresses).timeout(FIVE_SECONDS).instrument(SessionRunnerTest.CLIENT)
            .allowBlockingConnector(true).build()) {
      RunResult<String> result = runner.run(WhoAnswersTask.class, sessions);
      assertTrue(result.allSucceeded(), mode + ": " + result.failures());
      for (int i = 0; i < sessions; i++) {
        assertEquals(servers.get(i % 3).name + " who " + i, result.outcome(i).value(),
            mode + ", session " + i);
      }
    }
    for (NamingServer server : servers) {
      assertEquals(sessions / 3 + (servers.indexOf(server) < sessions % 3 ? 1 : 0), server.accepted, server.name);
    }
  }

  @Test
  void suspendingSessionsSpreadOverSeveralPipeServers() throws Exception {
    PipeEchoServer first = new PipeEchoServer(1, TimeUnit.MILLISECONDS);
    PipeEchoServer second = new PipeEchoServer(1, TimeUnit.MILLISECONDS);
    try (PipeConnector pipes = new PipeConnector();
        SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(2)).connector(pipes)
            .addresses(List.of(first.address(), second.address())).timeout(FIVE_SECONDS)
            .instrument(SessionRunnerTest.CLIENT).build()) {
      RunResult<String> result = runner.run(LineTesterTask.class, 50, 3);
      assertTrue(result.allSucceeded(), result.failures().toString());
      assertEquals("49:3:" + 3 * "session 49 line 0".length(), result.outcome(49).value());
      // Closing one server strands exactly the sessions that go to it: every odd one.
      second.close();
      RunResult<String> half = runner.run(LineTesterTask.class, 10, 1);
      for (int i = 0; i < 10; i++) {
        assertEquals(i % 2 == 0 ? Outcome.Status.SUCCEEDED : Outcome.Status.FAILED,
            half.outcome(i).status(), "session " + i);
      }
    } finally {
      first.close();
      second.close();
    }
  }

  @Test
  void addressesMustNotBeEmptyAndTheLastCallWins() throws Exception {
    assertThrows(IllegalArgumentException.class, () -> SessionRunner.builder().addresses(List.of()));
    List<SocketAddress> addresses = startServers(2);
    try (SocketConnector sockets = new SocketConnector();
        SessionRunner runner = SessionRunner.builder().connector(sockets).addresses(addresses)
            .address(addresses.get(1)).timeout(FIVE_SECONDS).build()) {
      RunResult<String> result = runner.run(WhoAnswersTask.class, 2);
      assertEquals(servers.get(1).name + " who 0", result.outcome(0).value());
      assertEquals(servers.get(1).name + " who 1", result.outcome(1).value());
    }
  }

  /** Answers each line with its own name and the line; a thread per connection. */
  private static final class NamingServer implements AutoCloseable {
    final String name;
    final ServerSocket socket;
    volatile int accepted;

    NamingServer(InetAddress host) throws IOException {
      socket = new ServerSocket(0, 50, host);
      name = "server@" + host.getHostAddress();
      Thread acceptor = new Thread(this::acceptLoop, "naming-server-accept");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    SocketAddress address() {
      return new InetSocketAddress(socket.getInetAddress(), socket.getLocalPort());
    }

    private void acceptLoop() {
      while (!socket.isClosed()) {
        try {
          Socket client = socket.accept();
          accepted++;
          Thread t = new Thread(() -> serve(client), "naming-server");
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return;
        }
      }
    }

    private void serve(Socket client) {
      try (client) {
        BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
        OutputStream out = client.getOutputStream();
        String line;
        while ((line = in.readLine()) != null) {
          out.write((name + " " + line + "\r\n").getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
      } catch (IOException e) {
        // the client went away
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
