package io.weft.transport.mina.internal;

import io.weft.transport.PeerClosedException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.StartTlsInjectionException;
import io.weft.transport.TransportClosedException;
import io.weft.transport.internal.Deadlines;
import io.weft.transport.internal.Inbound;
import io.weft.transport.internal.InboundBuffer;
import io.weft.transport.internal.Tls;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketException;
import java.nio.charset.Charset;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLSession;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.future.DefaultIoFuture;
import org.apache.mina.core.future.IoFuture;
import org.apache.mina.core.future.IoFutureListener;
import org.apache.mina.core.service.IoProcessor;
import org.apache.mina.core.session.AbstractIoSession;
import org.apache.mina.core.session.AttributeKey;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.core.write.WriteToClosedSessionException;
import org.apache.mina.filter.ssl.SslFilter;
import org.apache.mina.transport.socket.nio.NioSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one MINA-backed transport shares with the I/O threads: the bounded inbound buffer,
 * end of stream, failure and closed state, and the read suspension that keeps the buffer
 * bounded. MINA's {@code IoSession.read()} is not used: its queue is unbounded and a close
 * during a pending read leaves later reads hanging.
 *
 * <p><b>Lifecycle.</b> Created before the connect, {@link #attach attached} to the
 * {@link IoSession} by the connect's session initializer, fed by {@link SessionStateHandler}
 * until the session closes, and {@link #close closed} once by its transport or connector.
 *
 * <p><b>Reading.</b> The {@code poll*} methods never wait: they take what is buffered or answer
 * "need more", exactly as {@link InboundBuffer} does. The caller then waits in one of two ways:
 * <ul>
 *   <li>blocking: {@link #awaitInput(long)}, a timed wait on a condition;
 *   <li>non-blocking: {@link #wakeWhenReadable(Runnable)}, which registers a one-shot wake-up
 *       and returns at once (for a transport that suspends a continuation instead).
 * </ul>
 * Either way the wait ends when input has <em>arrived since the last poll that answered "need
 * more"</em>: bytes, end of stream, a failure, or a close. Then the caller polls again.
 *
 * <p><b>Bounding.</b> When more than {@code inboundLimit} bytes are buffered the session's reads
 * are suspended ({@code suspendRead}); they resume when a reader drains the buffer below half the
 * limit. The buffer can overshoot the limit by what MINA delivers before the suspension takes
 * effect: one or two of its reads (64 KiB each at most). A pending read that needs more than the
 * limit (a long line, a large {@code readFully}) lifts the limit to what it asks for, and no
 * further: its byte count, or its line limit plus the terminator. Otherwise it would wait for
 * bytes that a suspended session never reads.
 *
 * <p><b>End of the session.</b> MINA closes the session when a read returns -1, so a peer's
 * half-close arrives as a session close: the reader sees end of stream after what is buffered,
 * a send fails at once with {@link PeerClosedException}, and any wait (input, a write or connect
 * future) is woken by the close, whoever closes. After {@link #close} this object holds no
 * buffer and no session.
 *
 * <p>Only TCP (NIO) sessions are suspended. The in-VM pipe has no backpressure to give: a write
 * completes inline whether or not the reader reads, and a suspended pipe session only moves the
 * bytes from this buffer into MINA's own unbounded queue. Worse, MINA 2.2.10's pipe can reorder
 * messages when a resume delivers that queue while the peer is writing (seen in tests). So on
 * the pipe this buffer holds whatever the peer has sent and not yet been read.
 *
 * <p><b>Threads.</b> One reader at a time (the transport's session); the I/O side may run on any
 * thread at the same time; {@link #close} from any thread. No MINA call is made while this
 * object's lock is held: on the in-VM pipe a MINA call can run the peer's callbacks inline, and
 * those could be waiting for MINA's own session lock.
 */
public final class SessionState implements Inbound {
  private static final Logger LOG = LoggerFactory.getLogger(SessionState.class);

  /** The {@link IoSession} attribute under which a session's state is kept. */
  public static final AttributeKey KEY = new AttributeKey(SessionState.class, "state");

  /** The inbound limit used when none is given: 64 KiB. */
  public static final int DEFAULT_INBOUND_LIMIT = 64 * 1024;

  private static final int INITIAL_CAPACITY = 512;
  /**
   * The longest a wait for this session's input sleeps before it looks again at the session's
   * state itself, so that a wake-up lost to a race with the I/O thread costs at most this much,
   * never the whole timeout. Every waiting path (blocking and suspending) uses it.
   */
  public static final long REASSERT_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final InboundBuffer inbound = new InboundBuffer(INITIAL_CAPACITY);
  private final int inboundLimit;
  private final int resumeBelow;

  // Guarded by lock; volatile only so that inputArrived() can look without it.
  private volatile boolean arrived;

  // Guarded by lock.
  private IOException failure;
  private Runnable wakeup;
  private Runnable endWakeup;
  private int highWaterMark;
  /** Bytes the pending read needs buffered (0 when none is pending): the limit is lifted to it. */
  private int wanted;

  /** True once the MINA session has closed, whoever closed it; or once it has failed. */
  private volatile boolean ended;
  /** True while a reader waits for input in any way: spinning, blocked or suspended. */
  private volatile boolean readerWaiting;

  private volatile String closedBecause;
  private volatile IoSession session;
  private volatile boolean suspendable;

  /** Done once the TLS handshake has completed; null while none has started. */
  private volatile DefaultIoFuture handshake;
  /** The negotiated session once the handshake has completed. */
  private volatile SSLSession tlsSession;
  /** True from a STARTTLS until its handshake completes: plaintext arriving then is an injection. */
  private volatile boolean upgrading;

  // Read suspension is decided under the lock and applied outside it (see applyTraffic).
  private volatile boolean suspendWanted;
  private volatile int suspensions;

  /**
   * @param inboundLimit bytes buffered above which reading from the peer is suspended
   * @throws IllegalArgumentException if {@code inboundLimit < 2}
   */
  public SessionState(int inboundLimit) {
    if (inboundLimit < 2) {
      throw new IllegalArgumentException("inboundLimit < 2: " + inboundLimit);
    }
    this.inboundLimit = inboundLimit;
    this.resumeBelow = inboundLimit / 2;
  }

  /**
   * Binds this state to its session (from the connect's session initializer, before any event).
   * A state already closed closes the session at once: the connect was abandoned.
   */
  public void attach(IoSession session) {
    session.setAttribute(KEY, this);
    lock.lock();
    try {
      // Plaintext until beginTls says otherwise: a TLS alert at the start means a TLS port.
      inbound.expectPlaintextFrom(session.getRemoteAddress());
    } finally {
      lock.unlock();
    }
    this.suspendable = session instanceof NioSession;
    this.session = session;
    if (closedBecause != null) {
      this.session = null;
      session.closeNow();
    }
  }

  /** The session, or null before the connect has created one and after {@link #close}. */
  public IoSession session() {
    return session;
  }

  // ---- The I/O side: called by SessionStateHandler on whichever thread delivers the event.

  void onMessage(IoBuffer message) {
    Runnable toRun;
    Runnable end = null;
    boolean suspend = false;
    lock.lock();
    try {
      if (closedBecause != null) {
        return;
      }
      if (upgrading && !isSecured()) {
        // Plaintext that reached the handler past the upgrade point without going through TLS.
        if (failure == null) {
          byte[] injected = new byte[message.remaining()];
          message.get(injected);
          failure = injection(injected);
        }
        arrived = true;
        ended = true;
        end = takeEndWakeup();
        toRun = takeWakeupAndSignal();
      } else {
        inbound.append(message.buf());
        arrived = true;
        int size = inbound.size();
        if (size > highWaterMark) {
          highWaterMark = size;
        }
        if (size > inboundLimit && size >= wanted && suspendable) {
          if (!suspendWanted) {
            suspendWanted = true;
            suspensions++;
          }
          // Asserted on every message over the limit, which also repairs a lost suspension.
          suspend = true;
        }
        toRun = takeWakeupAndSignal();
      }
    } finally {
      lock.unlock();
    }
    if (suspend) {
      applyTraffic(true);
    }
    runWakeup(toRun);
    runWakeup(end);
  }

  private static StartTlsInjectionException injection(byte[] injected) {
    return new StartTlsInjectionException("refusing STARTTLS: " + injected.length
        + " plaintext bytes arrived after the upgrade point, before the handshake: "
        + ProtocolViolationException.quote(injected)
        + " (a server never sends them; an attacker injecting commands does)");
  }

  void onClosed() {
    Runnable toRun;
    Runnable end;
    lock.lock();
    try {
      // After a failure the reader must see the failure, not a clean end of stream.
      if (failure == null) {
        inbound.markEof();
      }
      arrived = true;
      ended = true;
      toRun = takeWakeupAndSignal();
      end = takeEndWakeup();
    } finally {
      lock.unlock();
    }
    runWakeup(toRun);
    runWakeup(end);
  }

  void onFailure(Throwable cause) {
    Runnable toRun;
    Runnable end;
    lock.lock();
    try {
      if (failure == null && !inbound.isEof()) {
        failure = cause instanceof IOException ? (IOException) cause : new IOException(cause);
      }
      arrived = true;
      ended = true;
      toRun = takeWakeupAndSignal();
      end = takeEndWakeup();
    } finally {
      lock.unlock();
    }
    runWakeup(toRun);
    runWakeup(end);
  }

  /** The handshake completed ({@code SslEvent.SECURED}): records its session, ends the wait. */
  void onSecured(IoSession session) {
    tlsSession = (SSLSession) session.getAttribute(SslFilter.SSL_SECURED);
    upgrading = false;
    DefaultIoFuture h = handshake;
    if (h != null) {
      h.setValue(Boolean.TRUE);
    }
  }

  private boolean isSecured() {
    IoSession s = session;
    return tlsSession != null || (s != null && s.getAttribute(SslFilter.SSL_SECURED) != null);
  }

  // ---- TLS.

  /**
   * Starts waiting for a TLS handshake on this session and returns the future that is done when
   * it completes (it is not completed by a failure or a close: wait with {@link #awaitDone} or
   * a registration that also ends with the session, then ask {@link #tlsFailure}). For STARTTLS
   * ({@code upgrade}) it first refuses if plaintext is buffered unread, and from then on treats
   * plaintext that reaches the handler before the handshake completes as an injection. Call it
   * before the TLS filter is added.
   *
   * @throws StartTlsInjectionException if {@code upgrade} and bytes are buffered unread
   * @throws IllegalStateException if a handshake has already started
   */
  public IoFuture beginTls(IoSession session, boolean upgrade) throws IOException {
    lock.lock();
    try {
      checkOpen();
      if (handshake != null) {
        throw new IllegalStateException("this transport already speaks TLS");
      }
      inbound.stopExpectingPlaintext();
      if (upgrade && inbound.size() != 0) {
        throw injection(inbound.takeAll());
      }
      upgrading = upgrade;
      handshake = new DefaultIoFuture(session);
      return handshake;
    } finally {
      lock.unlock();
    }
  }

  /** The handshake's future, or null when none has started. */
  public IoFuture handshake() {
    return handshake;
  }

  /** The negotiated TLS session, or null before a handshake has completed. */
  public SSLSession tlsSession() {
    return tlsSession;
  }

  /**
   * After a handshake wait ended (not by time): null if the handshake completed; otherwise why
   * not, as the caller reports it: the injection refused, the transport closed, or a
   * {@link io.weft.transport.TlsHandshakeException} saying what failed.
   */
  public IOException tlsFailure(String what) {
    if (tlsSession != null) {
      return null;
    }
    lock.lock();
    try {
      if (failure instanceof StartTlsInjectionException) {
        return new StartTlsInjectionException(failure.getMessage());
      }
      if (closedBecause != null) {
        return new TransportClosedException("transport closed during " + what + ": " + closedBecause);
      }
      if (failure != null) {
        return Tls.handshakeFailed(what, failure);
      }
      return Tls.handshakeFailed(what,
          new EOFException("the peer closed the connection"));
    } finally {
      lock.unlock();
    }
  }

  private Runnable takeEndWakeup() {
    Runnable toRun = endWakeup;
    endWakeup = null;
    return toRun;
  }

  private Runnable takeWakeupAndSignal() {
    changed.signalAll();
    Runnable toRun = wakeup;
    wakeup = null;
    return toRun;
  }

  private static void runWakeup(Runnable toRun) {
    if (toRun == null) {
      return;
    }
    try {
      toRun.run();
    } catch (RuntimeException | Error e) {
      LOG.error("a wake-up failed; its session may never resume", e);
    }
  }

  // ---- The reader side.

  /** As {@link InboundBuffer#describeUnread}, for a read's timeout message. */
  public String describeUnread() {
    lock.lock();
    try {
      return inbound.describeUnread();
    } finally {
      lock.unlock();
    }
  }

  /** As {@link InboundBuffer#pollLine}, or throws the failure or close that ended input. */
  @Override
  public String pollLine(int limit, boolean strict, Charset charset) throws IOException {
    String line;
    boolean needMore;
    boolean resume;
    lock.lock();
    try {
      checkOpen();
      wanted = 0;
      line = inbound.pollLine(limit, strict, charset);
      // Before the end of the stream, no line is "need more"; after it, the clean end.
      needMore = line == null && !inbound.isEof();
      // A line of `limit` bytes needs up to limit + 2 with its CRLF; one byte more decides.
      resume = needMore && needMore((long) limit + 2L);
    } finally {
      lock.unlock();
    }
    afterPoll(needMore, resume);
    return line;
  }

  /** As {@link InboundBuffer#pollFully}, or throws the failure or close that ended input. */
  @Override
  public boolean pollFully(byte[] dst, int offset, int length) throws IOException {
    boolean done;
    boolean resume;
    lock.lock();
    try {
      checkOpen();
      wanted = 0;
      done = inbound.pollFully(dst, offset, length);
      resume = !done && needMore(length);
    } finally {
      lock.unlock();
    }
    afterPoll(!done, resume);
    return done;
  }

  /**
   * As {@link InboundBuffer#poll}: bytes copied, -1 at end of stream, {@link #NO_BYTES_YET} when
   * the caller must wait; or throws the failure or close that ended input.
   */
  @Override
  public int poll(byte[] dst, int offset, int length) throws IOException {
    int n;
    boolean resume;
    lock.lock();
    try {
      checkOpen();
      wanted = 0;
      n = inbound.poll(dst, offset, length);
      resume = n == NO_BYTES_YET && needMore(1L);
    } finally {
      lock.unlock();
    }
    afterPoll(n == NO_BYTES_YET, resume);
    return n;
  }

  /** As {@link InboundBuffer#isDrained}, or throws the close that ended input. */
  @Override
  public boolean isDrained() throws IOException {
    lock.lock();
    try {
      checkOpen();
      return inbound.isDrained();
    } finally {
      lock.unlock();
    }
  }

  private void checkOpen() throws TransportClosedException {
    String because = closedBecause;
    if (because != null) {
      throw new TransportClosedException("transport is closed: " + because);
    }
  }

  /**
   * Records that the reader must wait for {@code want} bytes in all; returns true when reading
   * must resume for them to come (the session is suspended with less buffered).
   */
  private boolean needMore(long want) throws IOException {
    if (failure != null) {
      throw failureException();
    }
    arrived = false;
    wanted = (int) Math.min(want, Integer.MAX_VALUE);
    if (suspendWanted && inbound.size() < wanted) {
      suspendWanted = false;
      return true;
    }
    return false;
  }

  private void afterPoll(boolean needMore, boolean resume) {
    if (resume) {
      applyTraffic(false);
    } else if (!needMore) {
      resumeIfDrained();
    }
  }

  /**
   * A fresh exception for the failure that ended the session, of the same kind where it is a
   * {@link SocketException} (a reset reads as {@code SocketException: Connection reset}, as on
   * a plain socket), thrown on the reader's own stack with the I/O thread's as its cause.
   */
  private IOException failureException() {
    IOException f = failure;
    if (f instanceof SocketException) {
      SocketException e = new SocketException(f.getMessage());
      e.initCause(f);
      return e;
    }
    return new IOException("connection failed: " + f, f);
  }

  /**
   * Throws if nothing can be sent any more: closed by its owner
   * ({@link TransportClosedException}), failed (the failure, as a reader sees it), or closed by
   * the peer ({@link PeerClosedException}). Never waits.
   */
  public void checkWritable(String what) throws IOException {
    IOException e = endedException(what, null);
    if (e != null) {
      throw e;
    }
  }

  /**
   * Why a send that did not complete failed, from this state and the write's own failure
   * ({@code cause}, may be null); null if the session has not ended and {@code cause} says
   * nothing of its end.
   */
  public IOException endedException(String what, Throwable cause) {
    lock.lock();
    try {
      String because = closedBecause;
      if (because != null) {
        return new TransportClosedException("transport closed during " + what + ": " + because);
      }
      if (failure != null) {
        return failureException();
      }
      if (ended || cause instanceof WriteToClosedSessionException) {
        return new PeerClosedException("the peer closed the connection; " + what + " not sent");
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  /** True once the session has closed or failed, whoever ended it. Never waits. */
  public boolean hasEnded() {
    return ended || closedBecause != null;
  }

  /**
   * Registers {@code wakeup} to run once when the session closes or fails, whoever ends it, and
   * returns true; or returns false, registering nothing, if it has already ended. For a wait on
   * a MINA future (a write, a connect), which the close itself does not always complete. The
   * same rules as {@link #wakeWhenReadable}: quick, never blocking, at most once.
   *
   * @throws IllegalStateException if one is already registered
   */
  public boolean wakeWhenEnded(Runnable wakeup) {
    if (wakeup == null) {
      throw new IllegalArgumentException("wakeup == null");
    }
    lock.lock();
    try {
      if (ended || closedBecause != null) {
        return false;
      }
      if (endWakeup != null) {
        throw new IllegalStateException("an end wake-up is already registered");
      }
      endWakeup = wakeup;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Forgets the wake-up registered with {@link #wakeWhenEnded}, if any. Never waits. */
  public void cancelEndWakeup() {
    lock.lock();
    try {
      endWakeup = null;
    } finally {
      lock.unlock();
    }
  }

  private void resumeIfDrained() {
    if (!suspendWanted) {
      return;
    }
    boolean resume = false;
    lock.lock();
    try {
      if (suspendWanted && inbound.size() < resumeBelow) {
        suspendWanted = false;
        resume = true;
      }
    } finally {
      lock.unlock();
    }
    if (resume) {
      applyTraffic(false);
    }
  }

  /**
   * Waits until input arrives (see the class javadoc) for at most {@code nanos}
   * ({@link Deadlines#FOREVER} for no bound). Returns false if the time ran out first.
   *
   * @throws IllegalStateException at once, if called on a MINA I/O thread
   * @throws InterruptedIOException if the thread is interrupted; its interrupt flag is set again
   */
  public boolean awaitInput(long nanos) throws InterruptedIOException {
    IoThreads.checkNotIoThread("input");
    lock.lock();
    readerWaiting = true;
    try {
      long left = nanos;
      while (!arrived && closedBecause == null && failure == null && !inbound.isEof()) {
        if (nanos != Deadlines.FOREVER && left <= 0L) {
          return false;
        }
        if (suspensions == 0) {
          if (nanos == Deadlines.FOREVER) {
            changed.await();
          } else {
            left = changed.awaitNanos(left);
          }
        } else {
          // This session has been suspended before: wake now and then to re-assert the resume
          // in case MINA lost it (see reassertTraffic).
          long slice = nanos == Deadlines.FOREVER ? REASSERT_NANOS : Math.min(left, REASSERT_NANOS);
          long unslept = changed.awaitNanos(slice);
          left -= slice - Math.max(0L, unslept);
          if (unslept <= 0L && !arrived) {
            lock.unlock();
            try {
              reassertTraffic();
            } finally {
              lock.lock();
            }
          }
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for input");
    } finally {
      readerWaiting = false;
      lock.unlock();
    }
  }

  /**
   * Marks the start and the end of a reader's wait that does not go through
   * {@link #awaitInput} (a spin, then a suspension). Only {@link #isReaderWaiting} reads it.
   */
  public void readerWaiting(boolean waiting) {
    readerWaiting = waiting;
  }

  /**
   * True while a reader waits for input: blocked, spinning or suspended. For tests that must
   * act only once a read is pending, and for diagnostics.
   */
  public boolean isReaderWaiting() {
    return readerWaiting;
  }

  /**
   * The non-blocking form of {@link #awaitInput}: registers {@code wakeup} to run once, when
   * input next arrives (see the class javadoc), and returns true; or returns false, without
   * registering anything, when input has already arrived and the caller should poll again now.
   *
   * <p>The wake-up runs on the thread that delivers the event: a MINA I/O processor thread for
   * TCP, the peer's writing thread for the in-VM pipe, or the thread that calls {@link #close}.
   * It runs outside this object's lock and must be quick and must not block: enqueue a
   * continuation, no more. It runs at most once per registration.
   *
   * @throws IllegalStateException if a wake-up is already registered
   */
  public boolean wakeWhenReadable(Runnable wakeup) {
    if (wakeup == null) {
      throw new IllegalArgumentException("wakeup == null");
    }
    lock.lock();
    try {
      if (arrived || closedBecause != null || failure != null || inbound.isEof()) {
        return false;
      }
      if (this.wakeup != null) {
        throw new IllegalStateException("a read wake-up is already registered");
      }
      this.wakeup = wakeup;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * True when input has arrived (see the class javadoc) or this state is closed: a poll now
   * would not answer "need more" for the same reason as the last one. Takes no lock, never
   * waits; for a caller that spins briefly before it waits.
   */
  public boolean inputArrived() {
    return arrived || closedBecause != null;
  }

  /**
   * Forgets the wake-up registered with {@link #wakeWhenReadable}, if any: the wait it served
   * has ended another way (timed out), and its owner may register a new one. Never waits.
   */
  public void cancelWakeup() {
    lock.lock();
    try {
      wakeup = null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits for {@code future} for at most {@code nanos} ({@link Deadlines#FOREVER} for no
   * bound), or until the session ends. Returns true when it is done or the session has ended
   * (the caller tells which), false if the time ran out first.
   *
   * @throws IllegalStateException at once, if called on a MINA I/O thread
   * @throws TransportClosedException if this state is closed while waiting
   * @throws InterruptedIOException if the thread is interrupted; its interrupt flag is set again
   */
  public boolean awaitDone(IoFuture future, long nanos, String what) throws IOException {
    IoThreads.checkNotIoThread(what);
    if (future.isDone()) {
      return true;
    }
    IoFutureListener<IoFuture> signal = done -> {
      lock.lock();
      try {
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    };
    future.addListener(signal);
    lock.lock();
    try {
      long left = nanos;
      while (!future.isDone()) {
        String because = closedBecause;
        if (because != null) {
          throw new TransportClosedException("transport closed during " + what + ": " + because);
        }
        if (ended) {
          return true;
        }
        if (nanos == Deadlines.FOREVER) {
          changed.await();
        } else {
          if (left <= 0L) {
            return false;
          }
          left = changed.awaitNanos(left);
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for " + what);
    } finally {
      lock.unlock();
      future.removeListener(signal);
    }
  }

  // ---- Closing.

  /**
   * Closes this state and its session (without flushing), wakes any waiting reader or
   * registered wake-up, and discards buffered input. Returns false if it was already closed.
   * Safe from any thread, I/O threads included: it never waits.
   */
  public boolean close(String because) {
    Runnable toRun;
    Runnable end;
    lock.lock();
    try {
      if (closedBecause != null) {
        return false;
      }
      closedBecause = because;
      inbound.clear();
      toRun = takeWakeupAndSignal();
      end = takeEndWakeup();
    } finally {
      lock.unlock();
    }
    IoSession s = session;
    // A finished transport may stay reachable from its owner's code; its MINA session need not.
    session = null;
    if (s != null) {
      s.closeNow();
    }
    runWakeup(toRun);
    runWakeup(end);
    return true;
  }

  /** True once {@link #close} has been called. */
  public boolean isClosed() {
    return closedBecause != null;
  }

  /** Why this was closed, or null while open. */
  public String closedBecause() {
    return closedBecause;
  }

  // ---- Read suspension.

  /**
   * Applies the wanted read suspension to the session again. MINA 2.2 changes a TCP session's
   * interest set by read-modify-write from whichever thread asks, racing with its I/O thread's
   * own changes, so a suspend or a resume can be lost. A lost suspension is repaired by the next
   * message over the limit; a lost resume by a waiting reader calling this now and then, which
   * {@link #awaitInput} does once the session has ever been suspended. A non-blocking waiter on
   * such a session should do the same from a timer while it waits. Never waits.
   */
  public void reassertTraffic() {
    applyTraffic(suspendWanted);
  }

  /**
   * Suspends or resumes reading, then re-reads the wanted state and corrects until it stops
   * changing. The I/O side only ever asks to suspend and the reader only to resume; whichever
   * call comes last was made after the last change of the wanted state had been read, so the
   * session ends in the wanted state without a lock around the MINA calls (which must not run
   * under this object's lock: see the class javadoc). On the in-VM pipe a resume delivers the
   * queued messages inline, and their suspension happens inline too, so one resume never hands
   * over the whole queue.
   */
  private void applyTraffic(boolean suspend) {
    IoSession s = session;
    if (s == null) {
      return;
    }
    for (;;) {
      if (suspend) {
        s.suspendRead();
      } else {
        s.resumeRead();
        if (s instanceof NioSession) {
          // MINA 2.2 changes the interest set without waking the selector; on JDK 11+ the change
          // then waits for the next select, up to a second away. A flush request is MINA's own
          // way to wake the selector, and with nothing queued it does nothing else.
          @SuppressWarnings("unchecked") // MINA hands out its processor as a raw type
          IoProcessor<IoSession> processor = ((AbstractIoSession) s).getProcessor();
          processor.flush(s);
        }
      }
      boolean now = suspendWanted;
      if (now == suspend) {
        return;
      }
      suspend = now;
    }
  }

  /** Bytes buffered now. For tests and diagnostics. */
  public int buffered() {
    lock.lock();
    try {
      return inbound.size();
    } finally {
      lock.unlock();
    }
  }

  /** The capacity of the inbound buffer's array now. For tests and diagnostics. */
  public int bufferCapacity() {
    lock.lock();
    try {
      return inbound.capacity();
    } finally {
      lock.unlock();
    }
  }

  /** The most bytes ever buffered at once. For tests and diagnostics. */
  public int highWaterMark() {
    lock.lock();
    try {
      return highWaterMark;
    } finally {
      lock.unlock();
    }
  }

  /** How many times reading from the peer was suspended. For tests and diagnostics. */
  public int suspensions() {
    return suspensions;
  }

  /** True while reading from the peer is suspended. For tests and diagnostics. */
  public boolean isReadSuspended() {
    IoSession s = session;
    return s != null && s.isReadSuspended();
  }

  @Override
  public String toString() {
    return "SessionState{session=" + session + (closedBecause == null ? "" : ", closed: " + closedBecause) + "}";
  }
}
