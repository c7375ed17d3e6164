package io.weft.load.testscenario;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.Map;

/**
 * A user scenario as a user would write it, outside Weft's packages: each iteration sends
 * {@code lines} lines to an echo server through a helper method (a frame the rewrite must
 * reach), timing each as {@code say}, and checks them.
 */
public final class EchoScenario implements Scenario {
  private final int lines;
  private Transport transport;
  private int n;

  public EchoScenario(Map<String, String> params) {
    this.lines = Integer.parseInt(params.getOrDefault("lines", "1"));
  }

  @Override
  public void connected(Transport transport, OpRecorder ops) {
    this.transport = transport;
  }

  @Override
  public void iteration(OpRecorder ops) throws Exception {
    for (int i = 0; i < lines; i++) {
      long start = ops.start();
      String line = "user " + n++;
      String echo = say(line);
      ops.stop("say", start);
      if (!echo.equals(line)) {
        throw new IOException("sent " + line + ", got " + echo);
      }
    }
  }

  private String say(String line) throws IOException {
    transport.writeLine(line);
    transport.flush();
    return transport.readLineStrict(256);
  }
}
