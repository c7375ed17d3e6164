package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Timeout;
import io.weft.transport.mina.testclient.EchoLinesTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A continuation resumed on a MINA processor writes its requests to the socket itself, never
 * through MINA's write queue, the first one of a new session included: the session is resumed
 * by its connect's completion on its own processor, which is the only thread that could write
 * its socket then, with nothing queued. Shown over real loopback TCP against a line-echo server
 * with MINA's own count of the messages its write path wrote, and with every echo checked in
 * order (the task fails a session on any other line). Resumed on the runner's workers, every
 * write goes through MINA's queue, which shows that the count counts.
 *
 * <p>One processor, so that every session started on it (each one admitted as another ends
 * there: all but the first {@value #IN_FLIGHT}) connects on the thread that must complete its
 * connect: it always waits, and is always resumed by that completion. The first ones start on
 * the runner's workers, and one may find its connect already done and write from the worker,
 * through MINA's queue, as any thread but the processor's must; and if its echo has come in
 * before it reads (a worker descheduled between its flush and its read, on a loaded machine), it
 * reads without a wait and writes its next line from the worker too: at most {@value #LINES}
 * such messages for each of the first {@value #IN_FLIGHT}, whatever the load (a first CI run of
 * 2026-11-27 saw 20). Before the inline first write, every session queued at least one.
 */
class FirstWriteInlineTest {
  private static final String CLIENT = "io.weft.transport.mina.testclient";
  private static final int SESSIONS = 200;
  private static final int LINES = 3;
  private static final int IN_FLIGHT = 10;

  private SuspendingMinaConnector connector;
  private OpenConnectionsServer server;

  @BeforeEach
  void start() throws Exception {
    connector = SuspendingMinaConnector.builder().processorCount(1).tcp();
    server = new OpenConnectionsServer();
  }

  @AfterEach
  void stop() throws Exception {
    try {
      if (connector != null) {
        connector.close();
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  @Test
  void everyWriteOfASessionStartedOnItsProcessorGoesInlineTheFirstToo() throws Exception {
    long suspends = run(Mode.continuations(1));
    System.out.printf("FirstWriteInlineTest: on the processor, %.2f suspends per session of %d requests,"
        + " %d messages through MINA's queue%n", (double) suspends / SESSIONS, LINES, connector.mina().writtenThroughMina());
    long queued = connector.mina().writtenThroughMina();
    assertTrue(queued <= (long) IN_FLIGHT * LINES, "messages written through MINA's queue: " + queued
        + " of " + SESSIONS * LINES + " requests, at most " + IN_FLIGHT * LINES + " of them made off the processor"
        + " (the first " + IN_FLIGHT + " sessions, started on the workers)");
  }

  @Test
  void resumedOnWorkersEveryWriteGoesThroughMinasQueue() throws Exception {
    long suspends = run(Mode.continuations(1).resumeOnWorkers());
    System.out.printf("FirstWriteInlineTest: on workers, %.2f suspends per session of %d requests,"
        + " %d messages through MINA's queue%n", (double) suspends / SESSIONS, LINES, connector.mina().writtenThroughMina());
    assertEquals((long) SESSIONS * LINES, connector.mina().writtenThroughMina(),
        "messages written through MINA's queue, every request made on a worker");
  }

  /** Runs the sessions; every echo came back in order; returns the waits that suspended. */
  private long run(Mode mode) throws Exception {
    long before = connector.suspends();
    try (SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector)
        .address(server.address()).connectPacing(ConnectPacing.NONE).maxInFlight(IN_FLIGHT)
        .timeout(Timeout.of(60, TimeUnit.SECONDS)).instrument(CLIENT).build()) {
      RunResult<String> result = runner.run(EchoLinesTask.class, SESSIONS, LINES);
      for (Outcome<String> o : result.outcomes()) {
        assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
      }
    }
    assertNull(server.failure(), "the server failed");
    assertEquals((long) SESSIONS * LINES, server.linesEchoed(), "lines the server echoed");
    return connector.suspends() - before;
  }
}
