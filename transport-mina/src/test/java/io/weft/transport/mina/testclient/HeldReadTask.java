package io.weft.transport.mina.testclient;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.transport.mina.outside.CapturedFrames;
import java.io.IOException;
import org.apache.commons.javaflow.core.StackRecorder;

/**
 * Two sessions on one I/O thread. Session 0, resumed there by its first echo, keeps its
 * continuation's recorder and suspends in a read the server answers only later. Session 1 is
 * resumed on the same thread by a line the server sends once session 0's "hold" arrived, so after
 * session 0's suspend was captured (one thread, one task after the other), and reads that captured
 * stack; then it asks the server to answer session 0.
 */
public final class HeldReadTask implements SessionTask<String> {
  public HeldReadTask() {}

  @Override
  public String run(Transport transport, int session) throws IOException {
    if (session == 0) {
      expect(transport, "first", "first");
      CapturedFrames.held = StackRecorder.get();
      return expect(transport, "hold", "held");
    }
    expect(transport, "watch", "go");
    CapturedFrames.look();
    return expect(transport, "release", "released");
  }

  private static String expect(Transport transport, String line, String reply) throws IOException {
    transport.writeLine(line);
    transport.flush();
    String got = transport.readLineStrict(64);
    if (!got.equals(reply)) {
      throw new ProtocolViolationException("expected " + reply + ", got " + ProtocolViolationException.quote(got));
    }
    return got;
  }
}
