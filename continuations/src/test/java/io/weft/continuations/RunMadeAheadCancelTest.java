package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.internal.runtime.SessionContext;
import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.testclient.MadeAheadCancelTask;
import io.weft.continuations.testclient.SilentTask;
import io.weft.continuations.testing.PipeConnector;
import io.weft.continuations.testing.PipeEchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.socket.SocketConnector;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each run hands every one of its sessions the {@code SessionCancelledException} it made ahead for
 * a session cancelled before it connects when the heap has no room for one of its own
 * ({@code SessionContext.cancelledWithNoRoom()}): the run's own, one per run, never shared with
 * another run (a consumer's {@code addSuppressed} on it would reach the other run's sessions).
 * What the frame does with it in a full heap is {@code SessionFrameLateTest}'s (its child sets its
 * own on the context it makes); this is the modes' wiring: {@code ModeRunner.contexts} for SYNC,
 * THREADS and VIRTUAL_THREADS, ContinuationRunner's fibers for CONTINUATIONS (read by the
 * session itself, from its fiber). {@code ModeRunner.contexts} is one final method: the three
 * modes are listed for the record (each runs through it today), not because their cases differ.
 */
class RunMadeAheadCancelTest {
  private static final String CLIENT = "io.weft.continuations.testclient";
  private static final int SESSIONS = 3;

  static List<Mode> threadModes() {
    List<Mode> modes = new ArrayList<>(List.of(Mode.SYNC, Mode.THREADS));
    if (Runtime.version().feature() >= 21) {
      modes.add(Mode.VIRTUAL_THREADS);
    }
    return modes;
  }

  @ParameterizedTest
  @MethodSource("threadModes")
  void everySessionOfARunGetsThatRunsMadeAheadCancel(Mode mode) throws Exception {
    // Nothing connects: the contexts are made, not run.
    try (SocketConnector sockets = new SocketConnector();
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(sockets)
             .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), 9)).build()) {
      ModeRunner modeRunner = ModeRunner.of(settings(runner));
      RunControl one = new RunControl(1_000);
      RunControl two = new RunControl(1_000);
      assertNotNull(one.cancelledWithNoRoom());
      assertNotSame(one.cancelledWithNoRoom(), two.cancelledWithNoRoom(), "two runs share one");
      for (SessionContext c : modeRunner.contexts(new SilentTask(), SESSIONS, one, null)) {
        assertSame(one.cancelledWithNoRoom(), c.cancelledWithNoRoom(), "session " + c.index());
      }
      for (SessionContext c : modeRunner.contexts(new SilentTask(), SESSIONS, two, null)) {
        assertSame(two.cancelledWithNoRoom(), c.cancelledWithNoRoom(), "session " + c.index());
      }
    }
  }

  @Test
  void everyFiberOfARunGetsThatRunsMadeAheadCancel() throws Exception {
    try (PipeEchoServer server = new PipeEchoServer(1, TimeUnit.MILLISECONDS); PipeConnector pipes = new PipeConnector();
         SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(pipes)
             .address(server.address()).timeout(Timeout.of(30, TimeUnit.SECONDS)).instrument(CLIENT).build()) {
      RunResult<Object> first = runner.run(MadeAheadCancelTask.class, SESSIONS);
      RunResult<Object> second = runner.run(MadeAheadCancelTask.class, SESSIONS);
      assertTrue(first.allSucceeded() && second.allSucceeded(), first + " / " + second);
      Object made = first.outcome(0).value();
      assertTrue(made instanceof SessionCancelledException, "session 0 of the first run: " + made);
      for (int i = 0; i < SESSIONS; i++) {
        assertSame(made, first.outcome(i).value(), "session " + i + " of the first run");
      }
      Object madeAgain = second.outcome(0).value();
      assertTrue(madeAgain instanceof SessionCancelledException, "session 0 of the second run: " + madeAgain);
      assertNotSame(made, madeAgain, "two runs share one");
      for (int i = 0; i < SESSIONS; i++) {
        assertSame(madeAgain, second.outcome(i).value(), "session " + i + " of the second run");
      }
    }
  }

  private static RunnerSettings settings(SessionRunner runner) throws ReflectiveOperationException {
    Field f = SessionRunner.class.getDeclaredField("settings");
    f.setAccessible(true);
    return (RunnerSettings) f.get(runner);
  }
}
