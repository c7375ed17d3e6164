package io.weft.continuations.testing;

import io.weft.continuations.InstrumentationReport;
import io.weft.continuations.Mode;
import io.weft.continuations.NotInstrumentableException;
import io.weft.continuations.SessionRunner;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import java.util.concurrent.TimeUnit;

/**
 * Started by AgentTest in a child JVM with the agent: runs each task named in its arguments
 * (simple names in the test-client package) with {@code alreadyRewritten()} and prints, per task,
 * either its refusal's problems or that it ran.
 */
public final class AgentRefusalChild {
  private AgentRefusalChild() {}

  public static void main(String[] args) throws Exception {
    try (PipeEchoServer server = new PipeEchoServer(1, TimeUnit.MILLISECONDS);
         PipeConnector pipes = new PipeConnector();
         SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(2)).connector(pipes)
             .address(server.address()).timeout(Timeout.of(10, TimeUnit.SECONDS)).alreadyRewritten().build()) {
      for (String name : args) {
        @SuppressWarnings("unchecked")
        Class<? extends SessionTask<Object>> task = (Class<? extends SessionTask<Object>>)
            Class.forName("io.weft.continuations.testclient." + name);
        try {
          runner.run(task, 500);
          System.out.println("ran " + name);
        } catch (NotInstrumentableException e) {
          for (InstrumentationReport.Problem p : e.problems()) {
            System.out.println("refused " + name + " :: " + p);
          }
        }
      }
      System.out.println("sessions opened " + pipes.peakOpenTransports());
    }
  }
}
