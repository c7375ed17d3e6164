package io.weft.load.testscenario;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;

/**
 * One line per connection, as an HTTP client with {@code Connection: close} does: each
 * iteration says a line to an echo server (the operation {@code say}), checks it and closes the
 * transport, so the next iteration connects anew. It also counts each good exchange under the
 * operation {@code on <thread>} (spaces become underscores in the report), naming the thread
 * it ran on.
 */
public final class OneShotEchoScenario implements Scenario {
  private Transport transport;

  @Override
  public void connected(Transport transport, OpRecorder ops) {
    this.transport = transport;
  }

  @Override
  public void iteration(OpRecorder ops) throws Exception {
    OpRecorder.Timer t = ops.start("say");
    transport.writeLine("hello");
    transport.flush();
    String reply = transport.readLineStrict(64);
    if (!"hello".equals(reply)) {
      throw new ProtocolViolationException("expected the echo of hello, got " + reply);
    }
    t.stop();
    ops.start("on " + Thread.currentThread().getName()).stop();
    transport.close();
  }
}
