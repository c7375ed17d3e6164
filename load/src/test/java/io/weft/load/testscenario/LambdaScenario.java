package io.weft.load.testscenario;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.transport.Transport;
import java.util.concurrent.Callable;

/** A scenario that reads through a JDK interface (a lambda as a Callable): it cannot suspend there. */
public final class LambdaScenario implements Scenario {
  private Transport transport;

  @Override
  public void connected(Transport transport, OpRecorder ops) {
    this.transport = transport;
  }

  @Override
  public void iteration(OpRecorder ops) throws Exception {
    transport.writeLine("hello");
    transport.flush();
    Callable<String> read = () -> transport.readLineStrict(256);
    read.call();
  }
}
