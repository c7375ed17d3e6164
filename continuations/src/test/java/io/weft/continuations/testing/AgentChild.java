package io.weft.continuations.testing;

import io.weft.continuations.Mode;
import io.weft.continuations.NotInstrumentableException;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.continuations.testclient.LambdaTask;
import io.weft.continuations.testclient.LineTesterTask;
import io.weft.transport.Timeout;
import java.util.concurrent.TimeUnit;

/**
 * The main AgentTest starts in a child JVM with {@code -javaagent:...=io.weft.continuations.testclient}:
 * it runs the plain test clients, loaded by the ordinary class loader, with
 * {@code alreadyRewritten()}, and prints what happened for the test to check.
 */
public final class AgentChild {
  private AgentChild() {}

  public static void main(String[] args) throws Exception {
    int sessions = Integer.parseInt(args[0]);
    try (PipeEchoServer server = new PipeEchoServer(1, TimeUnit.MILLISECONDS);
         PipeConnector pipes = new PipeConnector()) {
      SessionRunner.Builder builder = SessionRunner.builder().mode(Mode.continuations(1)).connector(pipes)
          .address(server.address()).timeout(Timeout.of(30, TimeUnit.SECONDS)).alreadyRewritten();
      try (SessionRunner runner = builder.build()) {
        RunResult<String> result = runner.run(LineTesterTask.class, sessions, 3);
        int right = 0;
        for (Outcome<String> o : result.outcomes()) {
          if ((o.index() + ":3:" + 3 * ("session " + o.index() + " line 0").length()).equals(o.value())) {
            right++;
          }
        }
        System.out.println("loaded by " + LineTesterTask.class.getClassLoader().getName());
        System.out.println("succeeded " + result.count(Outcome.Status.SUCCEEDED) + " of " + sessions
            + ", right values " + right + ", suspends " + pipes.suspends()
            + ", peak open " + pipes.peakOpenTransports());
        if (!result.allSucceeded()) {
          System.out.println("first failure: " + result.failures().get(0));
        }
        try {
          runner.run(LambdaTask.class, 1);
          System.out.println("lambda task ran");
        } catch (NotInstrumentableException e) {
          System.out.println("lambda task refused: " + e.problems().get(0).className());
        }
      }
      try (SessionRunner debug = builder.debugFrames(true).build()) {
        RunResult<String> result = debug.run(LineTesterTask.class, 20, 2);
        System.out.println("debug frames: succeeded " + result.count(Outcome.Status.SUCCEEDED) + " of 20"
            + (result.allSucceeded() ? "" : ", first failure " + result.failures().get(0)));
      }
    }
  }
}
