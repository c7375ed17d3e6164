package io.weft.load.testscenario;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * One timed echo per iteration ({@code echo}), then an untimed {@link #DONE} line, also echoed,
 * that tells a scripted peer this iteration has read the run's clock for the last time: a test
 * that steps a manual clock while the user waits for its next arrival waits for that line first.
 */
public final class SignallingEchoScenario implements Scenario {
  /** The line sent after each iteration's timed exchange. */
  public static final String DONE = "done";

  private Transport transport;
  private long sent;

  @Override
  public void connected(Transport transport, OpRecorder ops) {
    this.transport = transport;
  }

  @Override
  public void iteration(OpRecorder ops) throws Exception {
    String line = "echo " + sent++;
    OpRecorder.Timer t = ops.start("echo");
    String reply = say(line);
    t.stop();
    String done = say(DONE);
    if (!reply.equals(line) || !done.equals(DONE)) {
      throw new IOException("sent " + line + " and " + DONE + ", got " + reply + " and " + done);
    }
  }

  private String say(String line) throws IOException {
    transport.writeLine(line);
    transport.flush();
    return transport.readLineStrict(256);
  }
}
