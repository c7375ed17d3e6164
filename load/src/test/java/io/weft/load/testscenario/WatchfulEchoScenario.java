package io.weft.load.testscenario;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;

/**
 * An echo user that watches the driver: each iteration first checks that the transport it was
 * handed is open and has not already failed under it (counted as the errors
 * {@code CALL_ON_CLOSED_TRANSPORT} and {@code CALL_AFTER_FAILURE} of the operation
 * {@code misuse}), then says a line and expects it back; anything else is a protocol violation.
 */
public final class WatchfulEchoScenario implements Scenario {
  private Transport transport;
  private Transport failed;

  @Override
  public void connected(Transport transport, OpRecorder ops) {
    this.transport = transport;
  }

  @Override
  public void iteration(OpRecorder ops) throws Exception {
    if (!transport.isOpen()) {
      ops.error("misuse", "CALL_ON_CLOSED_TRANSPORT");
    }
    if (transport == failed) {
      ops.error("misuse", "CALL_AFTER_FAILURE");
    }
    OpRecorder.Timer t = ops.start("echo");
    transport.writeLine("hello");
    transport.flush();
    String reply = transport.readLineStrict(64);
    if (!"hello".equals(reply)) {
      failed = transport;
      throw new ProtocolViolationException("expected the echo of hello, got " + reply);
    }
    t.stop();
  }
}
