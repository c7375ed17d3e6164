package io.weft.transport.mina.internal;

import io.weft.transport.spi.HeapExhaustion;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.core.write.WriteToClosedSessionException;
import org.apache.mina.filter.FilterEvent;
import org.apache.mina.filter.ssl.SslEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one {@link org.apache.mina.core.service.IoHandler} of a Weft connector: it feeds each
 * session's events into the {@link SessionState} attached to it, marking the thread as an I/O
 * thread while it does (see {@link IoThreads}). Stateless; one instance serves every session.
 */
public final class SessionStateHandler extends IoHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(SessionStateHandler.class);
  /** For the report; not a constant, so that its literal is made as the class loads, not when the heap is full. */
  private static final String BUFFERING;

  static {
    BUFFERING = "a MINA I/O thread buffering input";
  }

  @Override
  public void messageReceived(IoSession session, Object message) {
    SessionState state = (SessionState) session.getAttribute(SessionState.KEY);
    if (state == null) {
      return;
    }
    deliver(session, state, ((IoBuffer) message).buf());
  }

  /**
   * Hands {@code input} to {@code session}'s state, marking the thread as receiving for that
   * session meanwhile; the one way input reaches a state, through MINA's filter chain or
   * straight from {@link NioProcessor}'s read.
   */
  static void deliver(IoSession session, SessionState state, ByteBuffer input) {
    boolean previous = IoThreads.enterReceiving(session);
    try {
      state.onMessage(input);
    } catch (OutOfMemoryError e) {
      // Growing this session's buffer failed. Fail the session, whose buffer then goes, rather
      // than let the error end this I/O thread and strand every other session it serves; if the
      // heap itself ran out, the runs under way end too.
      try {
        HeapExhaustion.report(e, BUFFERING);
        LOG.debug("session {}: out of memory buffering input", session, e);
        state.onFailure(new IOException("out of memory buffering input: " + e.getMessage(), e));
      } catch (OutOfMemoryError noRoom) {
        // No room to say why: the close ends the session's waits all the same.
      } finally {
        session.closeNow();
      }
    } finally {
      IoThreads.exitReceiving(previous);
    }
  }

  @Override
  public void sessionClosed(IoSession session) {
    SessionState state = (SessionState) session.getAttribute(SessionState.KEY);
    if (state == null) {
      return;
    }
    boolean previous = IoThreads.enter();
    try {
      state.onClosed();
    } finally {
      IoThreads.exit(previous);
    }
  }

  @Override
  public void event(IoSession session, FilterEvent event) {
    if (event != SslEvent.SECURED) {
      return;
    }
    SessionState state = (SessionState) session.getAttribute(SessionState.KEY);
    if (state != null) {
      state.onSecured(session);
    }
  }

  @Override
  public void exceptionCaught(IoSession session, Throwable cause) {
    if (cause instanceof WriteToClosedSessionException) {
      // MINA fails the writes still queued as it removes a closed session, before it reports the
      // close itself: the close ended the session, not a failure. The write's own future carries
      // the exception to the flush that waits on it, which reports the peer's close.
      LOG.debug("session {}: queued write dropped by the close", session);
      return;
    }
    LOG.debug("session {} failed", session, cause);
    SessionState state = (SessionState) session.getAttribute(SessionState.KEY);
    boolean previous = IoThreads.enter();
    try {
      if (state != null) {
        state.failed(session);
        state.onFailure(cause);
      }
    } finally {
      IoThreads.exit(previous);
    }
    // MINA closes the session itself after an I/O error, not after any other exception.
    session.closeNow();
  }
}
