package io.weft.load.testscenario;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.load.scenario.Workload;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;
import java.time.Duration;
import java.util.Map;

/**
 * An echo user that carries its workload: by default 3 users x 4 iterations and the threshold
 * {@code say:count>=12}; with {@code -p model=open}, 40 iterations/s for 1 s on 2 sessions and
 * {@code say:count>=40}. With {@code -p window=N} (and {@code -p holdMs=M}) the closed workload
 * declares a connect window of N users (held M ms).
 */
public final class DeclaredWorkloadScenario implements Scenario {
  private final boolean open;
  private final String window;
  private final String holdMs;
  private Transport transport;

  public DeclaredWorkloadScenario(Map<String, String> params) {
    this.open = "open".equals(params.get("model"));
    this.window = params.get("window");
    this.holdMs = params.get("holdMs");
  }

  @Override
  public Workload workload() {
    if (open) {
      return Workload.open().rate(40).duration(Duration.ofSeconds(1)).maxSessions(2).threshold("say:count>=40");
    }
    Workload w = Workload.closed(3).iterations(4).threshold("say:count>=12");
    if (window != null) {
      w.connectWindow(Integer.parseInt(window));
    }
    if (holdMs != null) {
      w.connectWindowHold(Duration.ofMillis(Long.parseLong(holdMs)));
    }
    return w;
  }

  @Override
  public void connected(Transport transport, OpRecorder ops) {
    this.transport = transport;
  }

  @Override
  public void iteration(OpRecorder ops) throws Exception {
    OpRecorder.Timer t = ops.start("say");
    transport.writeLine("hi");
    transport.flush();
    String echo = transport.readLineStrict(64);
    if (!"hi".equals(echo)) {
      throw new ProtocolViolationException("expected hi, got " + echo);
    }
    t.stop();
  }
}
