package io.weft.load.testscenario;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;
import java.util.Map;

/**
 * Each iteration is one operation, {@code batch}, of {@code lines} (default 3) echo exchanges in a
 * row: an operation whose server time is its last exchange's.
 */
public final class BatchEchoScenario implements Scenario {
  private final int lines;
  private Transport transport;

  public BatchEchoScenario(Map<String, String> params) {
    this.lines = Integer.parseInt(params.getOrDefault("lines", "3"));
  }

  @Override
  public void connected(Transport transport, OpRecorder ops) {
    this.transport = transport;
  }

  @Override
  public void iteration(OpRecorder ops) throws Exception {
    OpRecorder.Timer t = ops.start("batch");
    for (int i = 0; i < lines; i++) {
      transport.writeLine("line " + i);
      transport.flush();
      String echo = transport.readLineStrict(64);
      if (!echo.equals("line " + i)) {
        throw new ProtocolViolationException("expected the echo of line " + i + ", got " + echo);
      }
    }
    t.stop();
  }
}
