package com.example;

import com.example.client.EchoTask;
import com.example.server.EchoServer;
import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

/**
 * Runs 500 sessions of {@link EchoTask} as continuations on one worker, with the class as the
 * build left it: rewritten by Weft's Rewrite in process-classes, hence {@code alreadyRewritten()}.
 * Built without that step, {@code run} refuses before any session starts, naming the class and
 * the fix.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    try (ServerSocket server = EchoServer.start();
         SuspendingMinaConnector connector = SuspendingMinaConnector.tcp();
         SessionRunner runner = SessionRunner.builder()
             .mode(Mode.continuations(1))
             .connector(connector)
             .address(server.getLocalSocketAddress())
             .timeout(Timeout.of(2, TimeUnit.SECONDS))
             .maxInFlight(200)
             .alreadyRewritten()
             .build()) {
      RunResult<Integer> result = runner.run(EchoTask.class, 500, 5);
      System.out.println(result);
      int echoed = result.values().stream().mapToInt(Integer::intValue).sum();
      System.out.println("lines echoed: " + echoed + " of " + 500 * 5);
      if (!result.allSucceeded() || echoed != 500 * 5) {
        throw new IllegalStateException("not every session succeeded: " + result.failures());
      }
    }
  }
}
