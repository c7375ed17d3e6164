package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weft.continuations.testclient.QuitClientTask;
import io.weft.continuations.testclient.Reply;
import io.weft.continuations.testclient.ReplyTask;
import io.weft.continuations.testclient.ServiceTask;
import io.weft.continuations.testclient.ShapeException;
import io.weft.continuations.testclient.ToStringTask;
import io.weft.continuations.testing.PipeConnector;
import io.weft.continuations.testing.PipeEchoServer;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Client shapes that must run as continuations exactly as in SYNC: 500 sessions in
 * continuations(1) and continuations(2), compared session by session with SYNC (value, or
 * failure type and message), with suspends counted. Each of these was refused or wrong before
 * the per-method analysis and the loader's class identity.
 */
class WorkingShapesTest {
  private static final int SESSIONS = 500;

  private final PipeEchoServer server = new PipeEchoServer(1, TimeUnit.MILLISECONDS);
  private final PipeConnector pipes = new PipeConnector();

  @AfterEach
  void stop() {
    pipes.close();
    server.close();
  }

  @Test
  void aReadingCloseOnTheClientsOwnTypeRunsInTryWithResources() throws Exception {
    List<Outcome<String>> sync = sameAsSync(QuitClientTask.class);
    assertEquals("hello 7", sync.get(7).value());
  }

  @Test
  void theCallerCatchesTheTasksOwnExceptionAndUsesItsRecord() throws Exception {
    List<Outcome<Reply>> sync = sameAsSync(ReplyTask.class);
    assertEquals(new Reply(4, "reply 4"), sync.get(4).value());
    try (SessionRunner runner = runner(Mode.continuations(2))) {
      RunResult<Reply> result = runner.run(ReplyTask.class, 8);
      // The task class is rewritten by the continuation loader; its record and exception are not.
      assertNotSame(ReplyTask.class, runner.classLoader().loadClass(ReplyTask.class.getName()));
      assertSame(Reply.class, runner.classLoader().loadClass(Reply.class.getName()));
      Object value = result.outcome(5).value();
      assertTrue(value instanceof Reply reply && reply.index() == 5, String.valueOf(value));
      try {
        throw result.outcome(3).failure();
      } catch (ShapeException e) {
        assertEquals("session 3 refuses reply 3", e.getMessage());
      } catch (Throwable t) {
        fail("not caught as the task's own ShapeException: " + t);
      }
    }
  }

  @Test
  void aServiceFoundThroughTheContextClassLoaderRuns() throws Exception {
    List<Outcome<String>> sync = sameAsSync(ServiceTask.class);
    assertEquals("greetings 9", sync.get(9).value());
  }

  @Test
  void toStringAndForEachRunBesideAnUnreachedClassWhoseToStringReads() throws Exception {
    List<Outcome<String>> sync = sameAsSync(ToStringTask.class);
    assertEquals("Reply[index=2, line=x]|a2|b2", sync.get(2).value());
  }

  /** Runs the task in SYNC, then continuations(1) and (2); returns SYNC's outcomes. */
  private <T> List<Outcome<T>> sameAsSync(Class<? extends SessionTask<T>> task) throws Exception {
    List<Outcome<T>> sync;
    try (SessionRunner runner = runner(Mode.SYNC)) {
      sync = runner.run(task, SESSIONS).outcomes();
    }
    assertTrue(sync.stream().anyMatch(Outcome::succeeded), sync.get(0).toString());
    for (Mode mode : List.of(Mode.continuations(1), Mode.continuations(2))) {
      int suspendsBefore = pipes.suspends();
      List<Outcome<T>> got;
      try (SessionRunner runner = runner(mode)) {
        got = runner.run(task, SESSIONS).outcomes();
      }
      for (int i = 0; i < SESSIONS; i++) {
        Outcome<T> want = sync.get(i);
        Outcome<T> was = got.get(i);
        String where = mode + " session " + i + ": " + was + " (SYNC: " + want + ")";
        assertEquals(want.status(), was.status(), where);
        assertEquals(want.value(), was.value(), where);
        if (want.failure() != null) {
          assertSame(want.failure().getClass(), was.failure().getClass(), where);
          assertEquals(want.failure().getMessage(), was.failure().getMessage(), where);
        }
      }
      // A reply can be in before its read, which then returns without a suspend; most are not.
      assertTrue(pipes.suspends() - suspendsBefore > SESSIONS / 2, mode + ": sessions suspend on their reads, "
          + (pipes.suspends() - suspendsBefore));
    }
    assertFalse(sync.stream().anyMatch(o -> Objects.equals(o.status(), Outcome.Status.CANCELLED)));
    assertEquals(0, pipes.openTransports());
    return sync;
  }

  private SessionRunner runner(Mode mode) {
    return SessionRunner.builder().mode(mode).connector(pipes).address(server.address())
        .timeout(Timeout.of(30, TimeUnit.SECONDS)).instrument(SessionRunnerTest.CLIENT).build();
  }
}
