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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code LineParsing.parseLine}, the optional capability, in continuation mode, through a read that
 * certainly suspends (the pipe's server answers only once the read waits: no delay to beat): the
 * rewrite counts {@code LineParsing.parseLine} as a wait, so its call site suspends and resumes.
 * Through the checked wrapper over a transport that does not offer it (the pipe), whose own steps
 * read with {@code readLineStrict}; through a task's own forwarding transport that offers it too;
 * and, the client falling back to {@code readLineStrict}, through a task's own forwarding
 * transport that offers only {@code Transport}: it keeps working unchanged.
 */
class ParseLineInContinuationsTest {
  private final PipeEchoServer server = PipeEchoServer.answeringWaitingReaders();
  private final PipeConnector pipes = new PipeConnector();

  @AfterEach
  void stop() {
    pipes.close();
    server.close();
  }

  @ParameterizedTest(name = "over {0}")
  @CsvSource({"runner, parsed", "ownLines, parsed", "own, read"})
  void eachReadSuspendsAndAnswers(String over, String how) throws Exception {
    try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(pipes)
        .address(server.address()).timeout(Timeout.of(10, TimeUnit.SECONDS)).instrument(SessionRunnerTest.CLIENT)
        .build()) {
      RunResult<String> result = runner.run(ParseLineTask.class, 3, over);
      assertTrue(result.allSucceeded(), result.failures().toString());
      assertEquals(List.of(how + " hello 0", how + " hello 1", how + " hello 2"), result.values());
    }
    // One read per session, and each one waited: its continuation suspended there and resumed.
    assertEquals(3, pipes.suspends());
    assertEquals(0, pipes.openTransports());
  }
}
