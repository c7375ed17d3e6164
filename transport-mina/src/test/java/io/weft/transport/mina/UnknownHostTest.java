package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.mina.testclient.EchoLinesTask;
import io.weft.transport.netty.NettyConnector;
import io.weft.transport.netty.SuspendingNettyConnector;
import io.weft.transport.socket.SocketConnector;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A connect to an unresolved address whose name cannot resolve fails the same way on every
 * connector and in every mode (docs/errors.md, "host not resolved"): {@link UnknownHostException}
 * {@code connect to no-such-host.invalid/<unresolved>:6379 failed: host not resolved}. The name is
 * under {@code .invalid} (RFC 6761), which Weft refuses without asking any resolver: no DNS
 * query leaves the machine.
 */
class UnknownHostTest {
  private static final InetSocketAddress NOWHERE = InetSocketAddress.createUnresolved("no-such-host.invalid", 6379);
  private static final String EXPECTED = "connect to no-such-host.invalid/<unresolved>:6379 failed: host not resolved";
  private static final Timeout TIMEOUT = Timeout.of(30, TimeUnit.SECONDS);

  enum Kind {
    SOCKET(SocketConnector::new, Mode.THREADS),
    MINA(MinaConnector::tcp, Mode.THREADS),
    SUSPENDING_MINA(SuspendingMinaConnector::tcp, Mode.continuations(1)),
    NETTY(NettyConnector::tcp, Mode.THREADS),
    SUSPENDING_NETTY(SuspendingNettyConnector::tcp, Mode.continuations(1));

    final Supplier<Connector> connectors;
    final Mode runMode;

    Kind(Supplier<Connector> connectors, Mode runMode) {
      this.connectors = connectors;
      this.runMode = runMode;
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aDirectConnectFailsWithUnknownHostNamingHostAndPort(Kind kind) throws Exception {
    try (Connector connector = kind.connectors.get()) {
      Throwable e = failure(() -> connector.connect(NOWHERE, TIMEOUT));
      System.out.println("UnknownHostTest " + kind + " direct: " + e);
      assertSame(UnknownHostException.class, e.getClass(), String.valueOf(e));
      assertEquals(EXPECTED, e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aSessionsConnectFailsWithUnknownHostInItsMode(Kind kind) throws Exception {
    Mode[] modes = kind.runMode == Mode.THREADS ? new Mode[] {Mode.SYNC, Mode.THREADS} : new Mode[] {kind.runMode};
    for (Mode mode : modes) {
      try (Connector connector = kind.connectors.get();
           SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(NOWHERE)
               .maxInFlight(1).timeout(TIMEOUT).instrument("io.weft.transport.mina.testclient").build()) {
        RunResult<String> result = runner.run(EchoLinesTask.class, 1, 1);
        Outcome<String> o = result.outcomes().get(0);
        System.out.println("UnknownHostTest " + kind + " " + mode + ": " + o.status() + " " + o.failure());
        assertEquals(Outcome.Status.FAILED, o.status(), kind + " " + mode);
        assertSame(UnknownHostException.class, o.failure().getClass(), kind + " " + mode + ": " + o.failure());
        assertEquals(EXPECTED, o.failure().getMessage(), kind + " " + mode);
      }
    }
  }

  private interface Call {
    void call() throws Exception;
  }

  private static Throwable failure(Call call) {
    try {
      call.call();
    } catch (Throwable e) {
      return e;
    }
    throw new AssertionError("the connect succeeded");
  }
}
