package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.ParseLineTask;
import io.weft.continuations.testing.PipeConnector;
import io.weft.continuations.testing.PipeEchoServer;
import io.weft.transport.Timeout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code Transport.parseLine}, the one default method of {@code Transport}, in continuation mode
 * over a transport that does not override it (the tests' pipe): the checked wrapper makes the
 * default's steps in its own rewritten frame, so the read suspends and answers. A task's own
 * forwarding transport that leaves it to the default fails at the read, never with a wrong line.
 */
class ParseLineInContinuationsTest {
  // Every read really waits (suspends), as in FailFastTest.
  private final PipeEchoServer server = new PipeEchoServer(50, TimeUnit.MILLISECONDS);
  private final PipeConnector pipes = new PipeConnector();

  @AfterEach
  void stop() {
    pipes.close();
    server.close();
  }

  private SessionRunner runner() {
    return SessionRunner.builder().mode(Mode.continuations(1)).connector(pipes).address(server.address())
        .timeout(Timeout.of(10, TimeUnit.SECONDS)).instrument(SessionRunnerTest.CLIENT).build();
  }

  @Test
  void aParseLineThatSuspendsAnswersThroughTheCheckedWrapper() throws Exception {
    try (SessionRunner runner = runner()) {
      RunResult<String> result = runner.run(ParseLineTask.class, 3);
      assertTrue(result.allSucceeded(), result.failures().toString());
      assertEquals(List.of("parsed hello 0", "parsed hello 1", "parsed hello 2"), result.values());
    }
  }

  @Test
  void aForwardingTransportLeftWithTheDefaultFailsAtTheRead() throws Exception {
    try (SessionRunner runner = runner()) {
      RunResult<String> result = runner.run(ParseLineTask.class, 3, true);
      assertEquals(3, result.count(Outcome.Status.FAILED), result.outcomes().toString());
      for (Outcome<String> o : result.outcomes()) {
        Throwable f = o.failure();
        assertTrue(f instanceof IllegalStateException || f instanceof NotInstrumentedError, String.valueOf(f));
      }
      assertEquals(0, pipes.openTransports());
    }
  }
}
