package io.weft.continuations;

import io.weft.testsupport.EchoServer;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.transport.socket.SocketConnector;

/**
 * For {@link VirtualWarmUpTest}'s child JVM (run with the JVM's class-load log on standard
 * output): one VIRTUAL_THREADS run of one session, which says on standard output when it runs.
 */
public final class VirtualWarmUpRun {
  private VirtualWarmUpRun() {}

  public static void main(String[] args) throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); SocketConnector connector = new SocketConnector();
         SessionRunner runner = SessionRunner.builder().mode(Mode.VIRTUAL_THREADS).connector(connector)
             .address(tcp.address()).build()) {
      RunResult<String> result = runner.run(SaysItRan.class, 1);
      System.out.println("outcome: " + result.outcome(0).status());
    }
    System.out.flush();
    System.exit(0);
  }

  /** Says that it ran. */
  public static final class SaysItRan implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) {
      System.out.println("session " + index + " ran");
      System.out.flush();
      return "ran";
    }
  }
}
