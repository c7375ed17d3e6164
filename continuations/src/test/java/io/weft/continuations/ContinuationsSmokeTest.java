package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.LineTesterTask;
import io.weft.continuations.testing.PipeConnector;
import io.weft.continuations.testing.PipeEchoServer;
import io.weft.transport.Timeout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

@org.junit.jupiter.api.Timeout(60)
class ContinuationsSmokeTest {
  @Test
  void plainClientSuspendsAndResumesThroughTheLoader() throws Exception {
    try (PipeEchoServer server = new PipeEchoServer(1, TimeUnit.MILLISECONDS);
         PipeConnector connector = new PipeConnector();
         SessionRunner runner = SessionRunner.builder()
             .mode(Mode.continuations(1))
             .connector(connector).address(server.address())
             .timeout(Timeout.of(5, TimeUnit.SECONDS))
             .instrument("io.weft.continuations.testclient")
             .build()) {
      System.out.println(runner.classLoader().report());
      RunResult<String> result = runner.run(LineTesterTask.class, 3, 2);
      System.out.println(result + " " + result.outcomes());
      for (String c : new String[] {"LineTesterTask", "EchoExchange", "LineIo", "Exchange"}) {
        System.out.println(c + " -> " + runner.classLoader().rewrittenMethods("io.weft.continuations.testclient." + c));
      }
      System.out.println("frame -> " + runner.classLoader().rewrittenMethods("io.weft.continuations.internal.SessionFrame"));
      assertTrue(result.allSucceeded(), result.outcomes().toString());
      assertEquals("1:2:" + ("session 1 line 0".length() * 2), result.outcome(1).value());
    }
  }
}
