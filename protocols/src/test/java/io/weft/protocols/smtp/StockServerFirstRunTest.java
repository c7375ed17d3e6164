package io.weft.protocols.smtp;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.icegreen.greenmail.Managers;
import com.icegreen.greenmail.smtp.SmtpServer;
import com.icegreen.greenmail.util.ServerSetup;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.protocols.SessionMode;
import io.weft.transport.Timeout;
import io.weft.transport.TransportTimeoutException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A first run as a user makes it (issue 26, "no self-inflicted storms"): 1,000 sessions of the
 * mail client against GreenMail's SMTP server as it ships, listening with Java's default backlog
 * of 50, through a {@code SessionRunner} given nothing but its mode, connector, address and
 * timeout: its default connect pacing ({@code ConnectPacing.DEFAULT}, 500 a second after 10 at
 * once) and no {@code maxInFlight}. In {@code THREADS}, in {@code continuations(1)} over MINA and
 * over Netty, and on virtual threads (JDK 21+).
 *
 * <p>What is asserted is what the client controls: when the sessions' connections were open.
 * Each session stamps its start, which comes after its connect, which comes after its turn; by
 * any time t after the run's start at most 10 + 500 t sessions have started (a pacing wait never
 * ends early: a latch in the thread modes, WaitTimer's deadline). Load can only make sessions start later,
 * so the bound holds on a busy machine too. With {@code ConnectPacing.NONE} as the default, the
 * first tens of sessions began within 6-40 ms and the test failed in continuation mode and on
 * virtual threads in every run, and in {@code THREADS} in one of two (its threads start one by
 * one, which under load spreads them too). (The server's accept times would not show it: its
 * listen queue, and the kernel's retries of the handshakes it dropped, spread them out.)
 *
 * <p>Whether every session delivers is printed, not asserted: it depends on load. Pacing keeps
 * the listen queue short only while the server keeps up with the pace. On two cores beside
 * other builds (load average 5-7) GreenMail's accept loop, sharing the CPU with a thousand
 * sessions in the same JVM, sometimes fell behind 500 a second; the accept queue dropped the
 * handshakes' last ACKs and waited on the SYN-ACK's retransmits (1, 2, 4, 8 s), and 43-108 of
 * 1,000 sessions gave up first, at their 10 s read timeout, where with no pacing 0-179 did in
 * THREADS and 231-666 in the other modes (docs/many-sessions.md): how many are lost depends on
 * that timeout. Only that failure is accepted; any other fails the test. A session whose
 * handshake a retransmit completed in time is slow, not lost: it counts among those that
 * delivered. What is asserted is when sessions began, after their connect: a runner that paced
 * the task but not the connect would pass (a stamp of the connect itself needs the runner to
 * report it; not done).
 */
class StockServerFirstRunTest {
  private static final int SESSIONS = 1_000;
  /** ConnectPacing.DEFAULT as documented: 10 at once, then one every 2 ms. */
  private static final int BURST = 10;
  private static final long INTERVAL_NANOS = 2_000_000L;
  private static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);

  static Stream<Arguments> modes() {
    return Stream.of(
        Arguments.of("THREADS", (Supplier<SessionMode>) SessionMode::threads),
        Arguments.of("CONTINUATIONS(1)/MINA", (Supplier<SessionMode>) () -> SessionMode.continuations(1)),
        Arguments.of("CONTINUATIONS(1)/Netty", (Supplier<SessionMode>) () -> SessionMode.continuationsOverNetty(1)),
        Arguments.of("VIRTUAL_THREADS", (Supplier<SessionMode>) SessionMode::virtualThreads));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void theDefaultPacesAFirstRunAgainstAStockServer(String name, Supplier<SessionMode> modes)
      throws Exception {
    try (SessionMode mode = modes.get()) {
      assumeTrue(mode.available(), mode::unavailableReason);
      // One descriptor per session here, and one for the server's end of it: it runs in this JVM.
      SessionMode.requireFileDescriptors(2L * SESSIONS);
      AcceptCountingSmtpServer server = AcceptCountingSmtpServer.begin();
      try {
        // One session first, so that the run below starts its sessions at once: in continuation
        // mode the first run with a task has its classes rewritten before any session starts.
        mode.run(StampedSendSession.class, server.address(), TEN_SECONDS);
        int warmUp = server.accepted();
        long start = System.nanoTime();
        // The runner as runSessions builds it: the mode, connector, address and timeout only.
        RunResult<Long> result = mode.runAll(StampedSendSession.class, server.address(), SESSIONS, TEN_SECONDS);
        long[] began = result.values().stream().mapToLong(t -> t - start).sorted().toArray();
        // A figure for the log: whether the run was whole depends on load (see the class comment).
        Map<String, Integer> lost = new TreeMap<>();
        for (Outcome<Long> o : result.failures()) {
          lost.merge(String.valueOf(o.failure()).replaceAll("[0-9]+", "N"), 1, Integer::sum);
        }
        System.out.println(name + " against GreenMail, backlog 50: " + result + ", " + (server.accepted() - warmUp)
            + " connections accepted" + (lost.isEmpty() ? "" : "; lost: " + lost));

        // The one failure load may bring: a handshake that waited in the listen queue past the
        // client's read timeout. Anything else fails the test.
        for (Outcome<Long> o : result.failures()) {
          assertTrue(o.status() == Outcome.Status.FAILED && o.failure() instanceof TransportTimeoutException
              && String.valueOf(o.failure().getMessage()).contains("nothing read so far"),
              "session " + o.index() + " ended otherwise than waiting for its greeting: " + o);
        }
        assertTrue(began.length >= SESSIONS / 2, "fewer than half the sessions delivered: " + result);
        // The k-th session to begin (of those that delivered: those that did not began no earlier
        // than their turn either, so leaving them out can only move the k-th later).
        for (int k = BURST; k < began.length; k++) {
          long earliest = (long) (k + 1 - BURST) * INTERVAL_NANOS;
          assertTrue(began[k] >= earliest, "session " + (k + 1) + " to begin began " + began[k] / 1_000
              + " us after the run's start; paced at 500 a second after 10 at once, not before "
              + (k + 1 - BURST) * INTERVAL_NANOS / 1_000 + " us");
        }
      } finally {
        server.stopService();
      }
    }
  }

  /** GreenMail's SMTP server as it ships (its own listener, backlog 50), counting its accepts. */
  static final class AcceptCountingSmtpServer extends SmtpServer {
    private static final long START_WITHIN_MILLIS = 10_000;
    private final AtomicInteger accepts = new AtomicInteger();

    private AcceptCountingSmtpServer() {
      super(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP), new Managers());
    }

    static AcceptCountingSmtpServer begin() throws InterruptedException {
      AcceptCountingSmtpServer server = new AcceptCountingSmtpServer();
      server.startService();
      if (!server.waitTillRunning(START_WITHIN_MILLIS)) {
        server.stopService();
        throw new IllegalStateException("GreenMail SMTP did not start within " + START_WITHIN_MILLIS + " ms");
      }
      return server;
    }

    /** Called by the accept loop with each connection it has just taken. */
    @Override
    protected void handleClientSocket(Socket socket) throws SocketException {
      accepts.incrementAndGet();
      super.handleClientSocket(socket);
    }

    InetSocketAddress address() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), getPort());
    }

    /** Connections accepted so far. */
    int accepted() {
      return accepts.get();
    }
  }
}
