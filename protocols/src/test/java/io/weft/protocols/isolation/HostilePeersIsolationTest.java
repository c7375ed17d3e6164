package io.weft.protocols.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.socket.SocketConnector;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One bad server costs one session, never the JVM: in a 256 MiB heap (the {@code isolation}
 * surefire execution, with {@code -XX:+ExitOnOutOfMemoryError}, so an OutOfMemoryError anywhere
 * ends the run as a crash), 100 sessions meet hostile servers (64 MiB claims, arrays nested and
 * endless, endless chunked and close-framed bodies) while 100 control sessions talk to a
 * well-behaved one, all at once. Every control must succeed; every hostile session must end with
 * the typed exception its kind of hostility calls for.
 */
@Tag("isolation")
class HostilePeersIsolationTest {
  private static final int SESSIONS = 200;
  private static final Timeout TIMEOUT = Timeout.of(60, TimeUnit.SECONDS);

  enum Case {
    CONTINUATIONS_1(Mode.continuations(1)),
    THREADS(Mode.THREADS),
    VIRTUAL_THREADS(Mode.VIRTUAL_THREADS);

    final Mode mode;

    Case(Mode mode) {
      this.mode = mode;
    }

    Connector connector() {
      return mode.kind() == Mode.Kind.CONTINUATIONS ? SuspendingMinaConnector.tcp() : new SocketConnector();
    }
  }

  @ParameterizedTest
  @EnumSource(Case.class)
  void hostilePeersCostTheirOwnSessionsOnly(Case c) throws Exception {
    int jdk = Runtime.version().feature();
    assumeTrue(c != Case.VIRTUAL_THREADS || jdk >= 21, "VIRTUAL_THREADS needs JDK 21 or later; this is JDK " + jdk);
    RunResult<String> result;
    try (HostileServer server = new HostileServer();
         Connector connector = c.connector()) {
      SessionRunner.Builder builder = SessionRunner.builder()
          .mode(c.mode)
          .connector(connector)
          .address(server.address())
          .timeout(TIMEOUT);
      if (c.mode.kind() == Mode.Kind.CONTINUATIONS) {
        builder.instrument(HostileOrControlSession.class.getPackageName(), "io.weft.protocols.internal",
            "io.weft.protocols.redis", "io.weft.protocols.http");
      }
      try (SessionRunner runner = builder.build()) {
        result = runner.run(HostileOrControlSession.class, SESSIONS);
      }
    }
    Map<String, Integer> ends = new TreeMap<>();
    for (Outcome<String> outcome : result.outcomes()) {
      String role = HostileOrControlSession.role(outcome.index());
      assertEquals(Outcome.Status.SUCCEEDED, outcome.status(), "session " + outcome.index() + " (" + role + "): " + outcome);
      String value = outcome.value();
      String expected = role.equals("control") ? "control ok"
          : role.equals("claim") ? "claim java.io.EOFException: "
          : role + " io.weft.transport.ProtocolViolationException: ";
      assertTrue(value.startsWith(expected), "session " + outcome.index() + ": " + value);
      ends.merge(value.length() > 60 ? value.substring(0, 60) : value, 1, Integer::sum);
    }
    // For the log: how the sessions ended.
    System.out.println("isolation " + c + ": " + result + " " + ends);
  }
}
