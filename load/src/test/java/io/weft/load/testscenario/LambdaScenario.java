package io.weft.load.testscenario;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.transport.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * A scenario that reads inside a lambda handed to JDK code ({@code Optional.map}): the JDK's frame
 * between the iteration and the read cannot suspend. (A lambda that only the scenario's own code
 * calls, a {@code Callable} say, does suspend.)
 */
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
    Optional.of(transport).map(t -> {
      try {
        return t.readLineStrict(256);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }).orElseThrow();
  }
}
