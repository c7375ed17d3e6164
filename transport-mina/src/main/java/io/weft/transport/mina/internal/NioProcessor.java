package io.weft.transport.mina.internal;

import java.io.IOException;
import java.net.SocketException;
import java.util.concurrent.Executor;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.filterchain.IoFilter;
import org.apache.mina.core.service.AbstractIoService;
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

  /**
   * MINA wakes the selector on every write, from whichever thread. A write made on this
   * processor's own thread while it delivers input (a session resumed where its bytes arrived)
   * needs no wake-up: the processor flushes right after delivering input, in the same turn of its
   * loop. Skipping it saves the selector's wake-up system call and a turn of the loop that selects
   * nothing. Every other wake-up (another processor's thread, a traffic change, disposal) goes
   * through.
   */
  @Override
  protected void wakeup() {
    Thread t = Thread.currentThread();
    if (t instanceof MinaIoThread) {
      MinaIoThread io = (MinaIoThread) t;
      if (io.writing && io.receiving != null && io.loop == this) {
        return;
      }
    }
    super.wakeup();
  }

  /**
   * Writes {@code length} bytes of {@code src} to {@code session}'s socket now, from this
   * processor's own thread while it delivers the session's input or completes its connect (see
   * {@link IoThreads#wakeConnected}), if nothing is queued before them: as Netty
   * writes on its event loop, with no write request, no future and no later turn of the loop.
   * Returns how many bytes went to the kernel: 0 when it may not write now (another thread, a
   * write queued or in progress, a filter such as TLS on the session, a session closing), fewer
   * than {@code length} when the socket's send buffer is full; the caller queues the rest through
   * MINA as usual, in order, since nothing was queued before.
   */
  public int writeNow(NioSession session, byte[] src, int length) {
    Thread t = Thread.currentThread();
    if (!(t instanceof MinaIoThread) || length > MinaIoThread.DIRECT_BYTES) {
      return 0;
    }
    MinaIoThread io = (MinaIoThread) t;
    if (io.loop != this || !io.serves(session) || session.isClosing() || !session.isConnected()
        || session.isWriteSuspended() || session.getCurrentWriteRequest() != null
        || !session.getWriteRequestQueue().isEmpty(session)
        || hasFilter(session)) {
      return 0;
    }
    IoBuffer direct = io.direct();
    direct.put(src, 0, length).flip();
    try {
      return Math.max(0, write(session, direct, length));
    } catch (IOException e) {
      // write() has already reported the failure to the session's state and closed it.
      return 0;
    }
  }

  /**
   * Registers {@code session}'s channel, on this processor's own thread (MINA's adding of a new
   * session, in its loop's turn). Records on the thread that it runs this processor's loop and
   * which session it is adding: MINA then completes the session's connect future on this same
   * thread, in the same turn and before its flush, and a continuation resumed by that completion
   * may write its first request inline (see {@link IoThreads#wakeConnected}).
   */
  @Override
  protected void init(NioSession session) throws Exception {
    super.init(session);
    Thread t = Thread.currentThread();
    if (t instanceof MinaIoThread) {
      MinaIoThread io = (MinaIoThread) t;
      io.loop = this;
      io.adding = session;
    }
  }

  /**
   * Closes {@code session}'s socket now, from this processor's own thread while it delivers the
   * session's input: the close a continuation makes when its reply ends it there. Returns false,
   * doing nothing, where it does not apply (another thread, a filter such as TLS on the session,
   * a write under way, a session already closing); the caller then closes it as MINA does.
   *
   * <p>Why: MINA's {@code closeNow()} only queues the session for removal, and its processor
   * closes the socket at the end of its loop's turn, after every other session it delivers to in
   * that turn. A runner admits the next session as this one ends, on this thread, and MINA's
   * connect sends its SYN at once from the calling thread; so without this the server saw the
   * next connection before this one's FIN, up to a whole turn's worth of sessions more than the
   * runner's {@code maxInFlight}, and a server that counts its clients (redis-server's
   * {@code maxclients}) refused connections that Netty's and the socket transport's sessions,
   * which close their socket inside {@code close()}, never made it refuse.
   *
   * <p>How: as MINA's own removal does, on this same thread, only earlier: MINA's close first
   * (the session marked closing, its queued writes dropped, its removal queued), then this
   * processor's {@code destroy} (key cancelled, channel closed: the JDK shuts a registered
   * channel's output at once, so the peer reads end of stream now, and frees the descriptor at
   * the next select), then the end of the session reported to MINA's listeners and filter chain
   * (its close future, the handler's {@code sessionClosed}). MINA's removal, later in the turn,
   * finds the key cancelled and skips the session; reporting its end twice is harmless too, since
   * MINA reports only a session it still manages.
   */
  boolean closeHere(NioSession session) {
    if (session.isClosing() || session.getCurrentWriteRequest() != null || hasFilter(session)
        || getState(session) != org.apache.mina.core.session.SessionState.OPENED) {
      return false;
    }
    session.closeNow();
    try {
      destroy(session);
    } catch (Exception e) {
      // As MINA's removal does with a failure to close: the session is reported ended anyway.
      LOG.debug("session {}: close failed", session, e);
    }
    ((AbstractIoService) session.getService()).getListeners().fireSessionDestroyed(session);
    return true;
  }

  /**
   * Reads {@code session}'s socket. A plain session of a Weft connector (its state attached, no
   * filter in its chain) is read here, on this processor's own thread, into the thread's direct
   * buffer, and the bytes go straight to the session's state, as Netty's event loop reads into a
   * pooled direct buffer and hands it to the pipeline: the socket's bytes are copied once, into
   * the state's inbound buffer. MINA's own read then sees 0 bytes: it fires no
   * {@code messageReceived}, walks no filter chain, and reads the socket no second time to learn
   * that it is drained (a read that fills less than the buffer has drained it; the selector
   * reports the socket again when more arrives). The heap buffer MINA allocates before each read
   * goes unused, so such a session's read buffer size is MINA's minimum (see
   * {@link SessionState#attach}). MINA's read counters ({@code getReadBytes}, idle status) do
   * not count bytes read this way; Weft uses neither. Every other read (a session with TLS or
   * any other filter) goes through MINA as usual.
   */
  @Override
  protected int read(NioSession session, IoBuffer buf) throws Exception {
    Thread t = Thread.currentThread();
    if (!(t instanceof MinaIoThread)) {
      return readChannel(session, buf);
    }
    MinaIoThread io = (MinaIoThread) t;
    io.loop = this;
    SessionState state = (SessionState) session.getAttribute(SessionState.KEY);
    if (state != null && !hasFilter(session)) {
      return readAndDeliver(io, session, state);
    }
    if (buf.remaining() <= MinaIoThread.DIRECT_BYTES) {
      // Through this thread's direct buffer: the same copy NIO would make into its temporary
      // direct buffer, without the thread-local lookup that finds that one.
      IoBuffer direct = io.direct();
      direct.limit(buf.remaining());
      int n = readChannel(session, direct);
      if (n > 0) {
        direct.flip();
        buf.put(direct);
      }
      return n;
    }
    return readChannel(session, buf);
  }

  /** True if any filter (TLS, or any other) is in the session's chain: a walk, no allocation. */
  private static boolean hasFilter(NioSession session) {
    return session.getFilterChain().contains(IoFilter.class);
  }

  /** How many times one read event refills the direct buffer before yielding to other sessions. */
  private static final int READS_PER_EVENT = 16;

  /**
   * Reads into the thread's direct buffer and delivers each fill to {@code state}; returns -1 at
   * the end of the stream or on a failure (MINA then closes the session), else 0.
   */
  private int readAndDeliver(MinaIoThread io, NioSession session, SessionState state) throws Exception {
    for (int i = 0; i < READS_PER_EVENT; i++) {
      IoBuffer direct = io.direct();
      int n = readChannel(session, direct);
      if (n <= 0) {
        return n < 0 ? -1 : 0;
      }
      direct.flip();
      SessionStateHandler.deliver(session, state, direct.buf());
      if (n < MinaIoThread.DIRECT_BYTES || session.isReadSuspended() || session.isClosing()) {
        return 0;
      }
    }
    return 0;
  }

  private int readChannel(NioSession session, IoBuffer buf) throws Exception {
    try {
      return super.read(session, buf);
    } catch (IOException e) {
      failed(session, "read", e);
      return -1;
    }
  }

  /**
   * Writes up to {@code length} bytes of {@code buf}. A heap buffer written on a Weft I/O thread
   * goes through the thread's direct buffer: the copy NIO would make into its per-thread
   * temporary direct buffer, without the thread-local lookup that finds that one.
   */
  @Override
  protected int write(NioSession session, IoBuffer buf, int length) throws IOException {
    try {
      Thread t = Thread.currentThread();
      if (t instanceof MinaIoThread && !buf.isDirect() && buf.hasArray()) {
        int n = Math.min(length, Math.min(buf.remaining(), MinaIoThread.DIRECT_BYTES));
        IoBuffer direct = ((MinaIoThread) t).direct();
        direct.put(buf.array(), buf.arrayOffset() + buf.position(), n).flip();
        int written = super.write(session, direct, n);
        if (written > 0) {
          buf.position(buf.position() + written);
        }
        return written;
      }
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
