package io.weft.protocols.smtp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.weft.protocols.SessionMode;
import io.weft.transport.Timeout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A first run as a user makes it: 1,000 sessions of a mail client against GreenMail exactly as it
 * ships (Java's default listen backlog of 50), with the runner's defaults. Unpaced, the connects
 * overflowed that queue and sessions were lost in every concurrent mode; the runner's default
 * connect pacing keeps the run whole.
 */
@org.junit.jupiter.api.Timeout(value = 180, unit = TimeUnit.SECONDS)
class StockServerFirstRunTest {
  private static final int SESSIONS = 1_000;

  static Stream<SessionMode> modes() {
    return Stream.of(SessionMode.threads(), SessionMode.continuations(1), SessionMode.virtualThreads());
  }

  @ParameterizedTest
  @MethodSource("modes")
  void everySessionOfAFirstRunAgainstAStockServerDelivers(SessionMode mode) throws Exception {
    assumeTrue(mode.available(), mode::unavailableReason);
    SessionMode.requireFileDescriptors(2L * SESSIONS);
    GreenMail greenMail = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
    greenMail.start();
    try (mode) {
      InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), greenMail.getSmtp().getPort());
      // runSessions fails, naming what went wrong, unless every session succeeded.
      List<String> codes = mode.runSessions(SmtpSendSession.class, address, SESSIONS, Timeout.of(10, TimeUnit.SECONDS));
      assertEquals(SESSIONS, codes.size());
      for (int i = 0; i < SESSIONS; i++) {
        assertEquals("250", codes.get(i), "session " + i);
      }
    } finally {
      greenMail.stop();
    }
  }
}
