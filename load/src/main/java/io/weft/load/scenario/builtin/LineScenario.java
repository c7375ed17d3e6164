package io.weft.load.scenario.builtin;

import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.protocols.tester.LineTester;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Transport;

/**
 * The line tester of the 2008 experiment as a load scenario: each iteration writes
 * {@code lines} lines (default 1), {@code "weft <n>"}, each flushed and read back from an echo
 * server with a strict, limited line read, and checks the echo; each exchange is timed as
 * {@code echo}. A wrong echo is a {@link ProtocolViolationException}.
 */
public final class LineScenario implements Scenario {
  private final int lines;
  private Transport transport;
  private long sent;

  public LineScenario(java.util.Map<String, String> params) {
    this.lines = Params.integer(params, "lines", 1, 1);
  }

  @Override
  public void connected(Transport transport, OpRecorder ops) {
    this.transport = transport;
  }

  @Override
  public void iteration(OpRecorder ops) throws Exception {
    for (int i = 0; i < lines; i++) {
      String line = "weft " + sent++;
      OpRecorder.Timer t = ops.start("echo");
      transport.writeLine(line);
      transport.flush();
      String reply = transport.readLineStrict(LineTester.REPLY_LIMIT);
      t.stop();
      if (!reply.equals(line)) {
        throw new ProtocolViolationException("sent " + ProtocolViolationException.quote(line) + ", got back "
            + ProtocolViolationException.quote(reply));
      }
    }
  }
}
