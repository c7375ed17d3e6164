package io.weft.transport.mina.internal;

import java.io.IOException;
import java.net.SocketException;
import java.util.concurrent.Executor;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.transport.socket.nio.NioSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MINA's NIO processor, with a socket's read or write failure (a reset, a broken pipe) handed to
 * the session's {@link SessionState} instead of to MINA's own handling, which logs one ERROR
 * line per failed session ("Exception occured while trying to read", "Error '...' while trying
 * to write") before it closes the session. Weft reports the failure to the session's reader or
 * writer, typed as a plain socket would type it, so it logs it only at DEBUG.
 *
 * <p>A failed read answers -1: MINA then closes the session as for a peer's close, and the
 * state, holding the failure, reports the failure rather than end of stream. A failed write
 * closes the session and answers 0 bytes written: MINA then fails the session's pending writes
 * as it removes it, and the state reports the failure to the flush that waits on them.
 *
 * <p>Made by MINA's {@code SimpleIoProcessorPool} through its public {@code (Executor)}
 * constructor; public for that reason only. It has MINA's class name because MINA names a
 * processor's thread after its class: its threads stay {@code NioProcessor-N}, the name
 * {@link IoThreads} and thread counts know.
 */
public final class NioProcessor extends org.apache.mina.transport.socket.nio.NioProcessor {
  private static final Logger LOG = LoggerFactory.getLogger(NioProcessor.class);

  public NioProcessor(Executor executor) {
    super(executor);
  }

  /**
   * A channel's failure as a {@link java.net.Socket} reports it: the JDK's socket streams turn
   * the channel's plain {@code IOException} ("Connection reset by peer", "Broken pipe") into a
   * {@link SocketException} with the same message.
   */
  static IOException asSocketException(IOException e) {
    if (e.getClass() != IOException.class) {
      return e;
    }
    SocketException s = new SocketException(e.getMessage());
    s.initCause(e);
    return s;
  }

  @Override
  protected int read(NioSession session, IoBuffer buf) throws Exception {
    try {
      return super.read(session, buf);
    } catch (IOException e) {
      failed(session, "read", e);
      return -1;
    }
  }

  @Override
  protected int write(NioSession session, IoBuffer buf, int length) throws IOException {
    try {
      return super.write(session, buf, length);
    } catch (IOException e) {
      failed(session, "write", e);
      session.closeNow();
      return 0;
    }
  }

  private static void failed(NioSession session, String what, IOException e) {
    LOG.debug("session {}: {} failed", session, what, e);
    SessionState state = (SessionState) session.getAttribute(SessionState.KEY);
    if (state != null) {
      boolean previous = IoThreads.enter();
      try {
        state.onFailure(asSocketException(e));
      } finally {
        IoThreads.exit(previous);
      }
    }
  }
}
