package io.weft.protocols.smtp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.continuations.ConnectWindow;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.protocols.SessionMode;
import io.weft.transport.Timeout;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
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
 * once), its default connect window ({@code ConnectWindow.DEFAULT}, 32 sessions not yet heard
 * from, growing to 48 while that pays) and no {@code maxInFlight}. In {@code THREADS}, in
 * {@code continuations(1)} over MINA and over Netty, and on virtual threads (JDK 21+).
 *
 * <p>Asserted (the pacing and window bounds hold on any machine; the first holds while
 * GreenMail accepts each connection within the window's 1 s hold, which the 30 s timeout covers
 * many times over):
 * <ul>
 *   <li>every session delivered its message. The window keeps at most 48 of the run's
 *       connections in the server's listen queue (a queued connection is one the server has not
 *       greeted), below the 51 it holds, while the server accepts each within the window's hold
 *       (1 s from its connect); so no handshake is dropped and nobody waits on the kernel's
 *       retransmits. An accept loop stalled longer than that lets the window free places (printed),
 *       and the queue may then overflow; a session that met a dropped handshake still delivers
 *       unless its SYN-ACK retransmits outlast the 30 s timeout;
 *   <li>the pacing, on the runner's own stamps of each connect's start: by t after the run's
 *       start at most 10 + 500 t connects had begun (a pacing wait never ends early);
 *   <li>the window, against the server's stamps of its accepts: when any session's connect
 *       began, the connects begun so far less the connections accepted so far were at most the
 *       largest the window grew to, 48 at most (plus the places the window freed after its 1 s
 *       bound without word from the server, printed). A connection is accepted before it is greeted, and a session gives its place
 *       back only once greeted.
 * </ul>
 * Without the window (pacing alone, the default before it) the same runs lost 43-108 of 1,000
 * sessions where the server fell behind 500 a second on a busy machine (docs/many-sessions.md).
 */
class StockServerFirstRunTest {
  private static final int SESSIONS = 1_000;
  /** ConnectPacing.DEFAULT as documented: 10 at once, then one every 2 ms. */
  private static final int BURST = 10;
  private static final long INTERVAL_NANOS = 2_000_000L;
  private static final Timeout TIMEOUT = Timeout.of(30, TimeUnit.SECONDS);

  static Stream<Arguments> modes() {
    return Stream.of(
        Arguments.of("THREADS", (Supplier<SessionMode>) SessionMode::threads),
        Arguments.of("CONTINUATIONS(1)/MINA", (Supplier<SessionMode>) () -> SessionMode.continuations(1)),
        Arguments.of("CONTINUATIONS(1)/Netty", (Supplier<SessionMode>) () -> SessionMode.continuationsOverNetty(1)),
        Arguments.of("VIRTUAL_THREADS", (Supplier<SessionMode>) SessionMode::virtualThreads));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void theDefaultsKeepAFirstRunAgainstAStockServerWhole(String name, Supplier<SessionMode> modes)
      throws Exception {
    try (SessionMode mode = modes.get()) {
      assumeTrue(mode.available(), mode::unavailableReason);
      // One descriptor per session here, and one for the server's end of it: it runs in this JVM.
      SessionMode.requireFileDescriptors(2L * SESSIONS);
      BurstReadySmtpServer server = BurstReadySmtpServer.stock();
      try {
        // One session first, so that the run below starts its sessions at once: in continuation
        // mode the first run with a task has its classes rewritten before any session starts.
        mode.run(SmtpSendSession.class, server.address(), TIMEOUT);
        int warmUp = server.acceptStamps().length;
        // The runner as runSessions builds it: the mode, connector, address and timeout only.
        RunResult<String> result = mode.runAll(SmtpSendSession.class, server.address(), SESSIONS, TIMEOUT);
        long[] accepts = server.acceptStamps();
        accepts = Arrays.copyOfRange(accepts, warmUp, accepts.length);
        Map<String, Integer> lost = new TreeMap<>();
        for (Outcome<String> o : result.failures()) {
          lost.merge(o.status() + " " + String.valueOf(o.failure()).replaceAll("[0-9]+", "N"), 1, Integer::sum);
        }
        // The connects begun but not yet accepted, as each connect began (the window's bound).
        long[] connects = new long[SESSIONS];
        for (Outcome<String> o : result.outcomes()) {
          connects[o.index()] = o.connectStartNanos();
        }
        Arrays.sort(connects);
        int accepted = 0;
        long most = 0;
        for (int k = 0; k < SESSIONS; k++) {
          while (accepted < accepts.length && accepts[accepted] - connects[k] < 0L) {
            accepted++;
          }
          most = Math.max(most, k + 1 - accepted);
        }
        ConnectWindow.Report window = result.connectWindow().orElse(null);
        System.out.println(name + " against GreenMail, backlog 50: " + result + ", " + accepts.length
            + " connections accepted; " + (window == null ? "no connect window" : window) + "; at most " + most
            + " connects begun and not yet accepted" + (lost.isEmpty() ? "" : "; lost: " + lost));

        assertTrue(result.allSucceeded(), result.failures().size() + " of " + SESSIONS + " sessions lost: " + lost);
        for (Outcome<String> o : result.outcomes()) {
          assertEquals("250", o.value(), "session " + o.index());
          assertNotEquals(Outcome.NOT_CONNECTED, o.connectStartNanos(), "session " + o.index() + " never connected");
        }

        // The pacing: the k-th connect to begin (from 0) began no earlier than its turn.
        for (int k = BURST; k < SESSIONS; k++) {
          long after = connects[k] - result.startNanos();
          long earliest = (k + 1 - BURST) * INTERVAL_NANOS;
          assertTrue(after >= earliest, "connect " + (k + 1) + " began " + after / 1_000 + " us after the run's"
              + " start; paced at 500 a second after 10 at once, not before " + earliest / 1_000 + " us");
        }

        // The window: a connection is accepted before it is greeted, and a session gives its place
        // back once greeted (or when the window frees it unheard, after 1 s).
        // The default window grows while that pays, to 48 at most: below the 51 the backlog holds.
        assertNotNull(window, "no connect window in a run with the runner's defaults: " + result);
        assertTrue(window.largest() <= ConnectWindow.DEFAULT_MAX_SESSIONS, window.toString());
        long bound = window.largest() + window.freedUnheard();
        assertTrue(most <= bound, most + " connects begun and not yet accepted at once; the window allows " + bound);
      } finally {
        server.stopService();
      }
    }
  }
}
