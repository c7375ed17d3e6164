package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Timeout;
import io.weft.transport.mina.testclient.WhichLoopTask;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How many MINA I/O processors a {@link SuspendingMinaConnector} serves its sessions on, over real
 * loopback TCP: by default one, as a Netty connector has one event loop (MINA's own default, one
 * more than the cores, leaves the others sleeping in their selectors at every lull: a context
 * switch each); {@code processorCount(0)} still asks for MINA's default. MINA hands sessions to
 * its processors in turn, so twelve sessions over more than one processor always land on more
 * than one; each session reports the I/O thread its last read returned on.
 */
class SuspendingMinaProcessorsTest {
  private static final String CLIENT = "io.weft.transport.mina.testclient";
  private static final int SESSIONS = 12;

  private ServerSocket server;
  private InetSocketAddress address;

  @BeforeEach
  void start() throws IOException {
    server = new ServerSocket(0, SESSIONS, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          Thread t = new Thread(() -> echo(s), "echo-connection");
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return;
        }
      }
    }, "echo-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
    address = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private static void echo(Socket s) {
    try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
      OutputStream out = s.getOutputStream();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (IOException e) {
      // the client closed
    }
  }

  /** The distinct I/O threads the sessions' last reads returned on. */
  private Set<String> loopsUsed(SuspendingMinaConnector connector) throws Exception {
    try (connector; SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
        .address(address).maxInFlight(SESSIONS).timeout(Timeout.of(20, TimeUnit.SECONDS)).instrument(CLIENT).build()) {
      RunResult<String> result = runner.run(WhichLoopTask.class, SESSIONS, 3);
      Set<String> loops = new TreeSet<>();
      for (Outcome<String> o : result.outcomes()) {
        assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
        assertTrue(o.value().startsWith("loop "), () -> "session " + o.index() + " last resumed " + o.value());
        loops.add(o.value());
      }
      return loops;
    }
  }

  @Test
  void theDefaultConnectorServesEverySessionOnOneProcessor() throws Exception {
    Set<String> loops = loopsUsed(SuspendingMinaConnector.tcp());
    assertEquals(1, loops.size(), () -> "sessions resumed on " + loops);
  }

  @Test
  void processorCountZeroAsksForMinasDefaultOfMoreThanOne() throws Exception {
    Set<String> loops = loopsUsed(SuspendingMinaConnector.builder().processorCount(0).tcp());
    assertTrue(loops.size() > 1, () -> "sessions resumed on " + loops + " only");
  }
}
