package io.weft.transport.mina.testclient;

import io.weft.continuations.spi.LoopThread;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.transport.mina.outside.CapturedFrames;
import java.io.IOException;
import org.apache.commons.javaflow.core.StackRecorder;

/**
 * Two sessions on one I/O thread. Each makes round trips until a reply resumed it on that thread.
 * Session 0 then keeps its continuation's recorder and suspends in a read the server answers only
 * later. Session 1 is resumed on the same thread by a line the server sends once session 0's "hold"
 * arrived, so after session 0's suspend was captured (one thread, one task after the other), and
 * reads that captured stack; then it asks the server to answer session 0.
 */
public final class HeldReadTask implements SessionTask<String> {
  private static final int ROUNDS = 100;

  public HeldReadTask() {}

  @Override
  public String run(Transport transport, int session) throws IOException {
    // Round trips until the session runs on its connection's I/O thread, where its reply resumes it.
    for (int i = 0; i < ROUNDS && !(Thread.currentThread() instanceof LoopThread); i++) {
      expect(transport, "first", "first");
    }
    if (!(Thread.currentThread() instanceof LoopThread)) {
      throw new IOException("session " + session + " never ran on an I/O thread: " + Thread.currentThread());
    }
    if (session == 0) {
      CapturedFrames.held = StackRecorder.get();
      CapturedFrames.heldOn = Thread.currentThread();
      return expect(transport, "hold", "held");
    }
    expect(transport, "watch", "go");
    if (Thread.currentThread() != CapturedFrames.heldOn) {
      throw new IOException("session 1 resumed on " + Thread.currentThread() + ", session 0 waits on "
          + CapturedFrames.heldOn + ": no order between its capture and this look");
    }
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
