package io.weft.transport.spi;

import io.weft.transport.PeerClosedException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.StartTlsInjectionException;
import io.weft.transport.TlsSettings;
import io.weft.transport.TransportClosedException;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.charset.Charset;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything a transport over an I/O library (MINA, Netty) shares with the library's I/O threads:
 * the bounded inbound buffer, end of stream, failure and closed state, the read suspension that
 * keeps the buffer bounded, and the wake-ups of a reader or writer that waits. One per
 * connection; a subclass per library ({@code SessionState}, {@code ChannelState}) feeds it the
 * library's events and fills in the few hooks below. Not API.
 *
 * <p><b>Lifecycle.</b> Created before the connect, bound to the library's connection by the
 * subclass, fed by the I/O side ({@link #onInput}, {@link #onClosed}, {@link #onFailure}) until
 * the connection ends, and {@linkplain #close closed} once by its transport or connector. After
 * {@link #close} it holds no buffered input and, in the subclass, no connection.
 *
 * <p><b>Reading.</b> The {@code poll*} methods ({@link Inbound}) never wait: they take what is
 * buffered or answer "need more", exactly as {@link InboundBuffer} does. The caller then waits
 * by registering a one-shot wake-up, {@link #wakeWhenReadable(Runnable)}, which returns at once:
 * {@link BlockingWaits} parks the thread until it runs, continuations-spi's
 * {@code SuspendingWaits} suspends the session. Either way the wait ends when input has
 * <em>arrived since the last poll that answered "need more"</em>: bytes, end of stream, a
 * failure, or a close. Then the caller polls again. A wait for a library future
 * ({@link #wakeWhenEnded} beside the future's own listener, {@link #wakeWhenDone}) also ends when
 * the connection ends, whoever ends it, and the caller tells which ended it.
 *
 * <p><b>Bounding.</b> When more than {@code inboundLimit} bytes are buffered, reading from the
 * peer is suspended ({@link #suspendReading}); it resumes when a reader drains the buffer below
 * half the limit. The buffer can overshoot the limit by what the library delivers before the
 * suspension takes effect: one or two of its reads. A pending read that needs more than the
 * limit (a long line, a large {@code readFully}) lifts the limit to what it asks for, and no
 * further: its byte count, or its line limit plus the terminator. Otherwise it would wait for
 * bytes that a suspended connection never reads.
 *
 * <p><b>States.</b> A connection is <em>open</em>, then <em>ended</em> (closed by the peer or
 * failed: {@link #onClosed}, {@link #onFailure}, or input the subclass refuses), then
 * <em>closed</em> by its owner ({@link #close}); or closed straight from open. The transitions:
 * <ul>
 *   <li>open → ended: end of stream is marked after what is buffered (a close), or the failure
 *       is kept (it then wins over a later end of stream); every registered wake-up runs.
 *   <li>open or ended → closed: the buffered input is discarded, the connection is closed,
 *       every registered wake-up runs; every later poll throws {@link TransportClosedException}.
 * </ul>
 * Read suspension has two states of its own, wanted or not ({@link #suspensions()} counts the
 * changes to wanted): the I/O side only ever asks to suspend and the reader only to resume.
 *
 * <p><b>Threads.</b> One reader at a time (the transport's session); the I/O side may run on
 * any thread at the same time; {@link #close} from any thread. Wake-ups run outside this
 * object's lock, on the thread that delivers the event: a session resumed by one may run right
 * there and call back into this object.
 *
 * <p><b>Implementation notes.</b> One {@link ReentrantLock} guards the buffer and the state; no
 * library call that can run another connection's callbacks is made under it (MINA's in-VM pipe
 * runs the peer's handler inline on the writer's thread), so suspension is decided under the
 * lock and applied after it, by a read-modify-write loop that ends in the wanted state without a
 * lock around the library calls (see {@link #suspendReading}). Each hook is called on a final
 * subclass, so the JIT binds it statically.
 *
 * @param <F> the library's future type ({@code IoFuture}, Netty's {@code Future})
 * @param <M> the type of the library's inbound messages
 */
public abstract class ConnectionState<F, M> implements Inbound {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionState.class);

  /** The inbound limit used when none is given: 64 KiB. */
  public static final int DEFAULT_INBOUND_LIMIT = 64 * 1024;

  /**
   * The longest a wait for input on a connection whose read suspension can be lost sleeps
   * before it re-asserts the wanted state (see {@link #reassertTraffic()}), so that a resume
   * lost to a race with the I/O thread costs at most this much, never the whole timeout. Every
   * waiting path (blocking and suspending) uses it.
   */
  public static final long REASSERT_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private static final int INITIAL_CAPACITY = 512;

  /** Guards the buffer and every field marked so; subclasses take it for their TLS steps. */
  protected final ReentrantLock lock = new ReentrantLock();
  /** The received bytes; guarded by {@link #lock}. */
  protected final InboundBuffer inbound = new InboundBuffer(INITIAL_CAPACITY);
  private final int inboundLimit;
  private final int resumeBelow;
  private final boolean reassertsTraffic;

  // Guarded by lock; volatile only so that inputArrived() can look without it.
  private volatile boolean arrived;

  /** What ended the connection, or null; guarded by {@link #lock}. */
  protected IOException failure;
  // Guarded by lock.
  private Runnable wakeup;
  private Runnable endWakeup;
  private int highWaterMark;
  /** Bytes the pending read needs buffered (0 when none is pending): the limit is lifted to it. */
  private int wanted;

  /** True once the connection has closed, whoever closed it; or once it has failed. */
  private volatile boolean ended;
  /** True while a reader waits for input in any way: spinning, blocked or suspended. */
  private volatile boolean readerWaiting;
  private volatile String closedBecause;
  /** False where suspending reads gives no backpressure (MINA's in-VM pipe). */
  private volatile boolean suspendable = true;

  /** The negotiated session once a TLS handshake has completed; set by the subclass. */
  protected volatile SSLSession tlsSession;

  // Read suspension is decided under the lock and applied outside it (see suspendReading).
  private volatile boolean suspendWanted;
  private volatile int suspensions;

  /**
   * @param inboundLimit bytes buffered above which reading from the peer is suspended
   * @param reassertsTraffic true when the library can lose a suspend or resume (MINA 2.2): every
   *     message over the limit then asks to suspend again, and a reader that waits re-asserts the
   *     resume every {@link #REASSERT_NANOS}
   * @throws IllegalArgumentException if {@code inboundLimit < 2}
   */
  protected ConnectionState(int inboundLimit, boolean reassertsTraffic) {
    if (inboundLimit < 2) {
      throw new IllegalArgumentException("inboundLimit < 2: " + inboundLimit);
    }
    this.inboundLimit = inboundLimit;
    this.resumeBelow = inboundLimit / 2;
    this.reassertsTraffic = reassertsTraffic;
  }

  // ---- The hooks each library fills in.

  /**
   * Suspends ({@code true}) or resumes reading from the peer. Called outside the lock, from any
   * thread; must not wait. Returns false when there is no connection (not yet bound, or
   * closed): nothing was done.
   */
  protected abstract boolean suspendReading(boolean suspend);

  /** Closes the library's connection without flushing and forgets it; once, outside the lock. */
  protected abstract void disconnect();

  /**
   * Appends {@code message}'s bytes to {@link #inbound}, under the lock; or refuses it, appending
   * nothing, and returns why (the connection then ends with that failure).
   */
  protected abstract IOException append(M message);

  /**
   * Throws at once if the current thread must not block for the library's I/O (its own I/O
   * threads), with the exception and message the library's transports use.
   */
  public abstract void checkMayBlock(String what);

  /**
   * The check of a wait that suspends a continuation where it can and blocks where it cannot:
   * on the library's I/O thread it may wait only inside a session the thread runs.
   */
  public abstract void checkMaySuspend(String what);

  /** True once {@code future} is done. */
  public abstract boolean isDone(F future);

  /**
   * Runs {@code wake} once {@code future} is done: at once, inline, if it is done already (the
   * rule of a wait registration). Quick, never blocking.
   */
  public abstract void wakeWhenDone(F future, Runnable wake);

  /**
   * Bytes handed to the library and not yet written to the socket; 0 when there is no
   * connection. For tests and diagnostics.
   */
  public abstract long pendingWriteBytes();

  /**
   * Whether reading from the peer is suspended now, as the library says. For tests and
   * diagnostics.
   */
  public abstract boolean isReadSuspended();

  /**
   * Hands the first {@code length} bytes of {@code src} to the library to write and flush, and
   * returns the write's future; or null when they all went to the socket at once, on the
   * connection's own I/O thread: nothing to wait for. Never waits; {@code src} may be reused as
   * soon as this returns.
   *
   * @throws IOException if nothing can be sent (see {@link #checkWritable})
   */
  public abstract F send(byte[] src, int length) throws IOException;

  /** True once {@code written}, a write's future, has completed successfully. */
  protected abstract boolean isWritten(F written);

  /** Why {@code written}, a done write's future, failed; null if it says nothing. */
  protected abstract Throwable failureOf(F written);

  /**
   * Records {@code cause}, a write's own failure, where the library reports it nowhere else
   * (Netty: only on the write's future). By default nothing.
   */
  protected void writeFailed(Throwable cause) {}

  /**
   * STARTTLS, the library's part: checks that the connection can still send, refuses buffered
   * plaintext, adds the library's TLS handler to the live connection (which starts the
   * handshake) and returns the handshake's future, which a failure or a close does not always
   * complete (wait with a wait that also ends with the connection, then ask
   * {@link #tlsFailure}). {@code host} is the name to verify and send (SNI); {@code what} names
   * the handshake in messages.
   *
   * @throws StartTlsInjectionException if bytes are buffered unread
   * @throws IllegalStateException if a handshake has already started, or the connection cannot
   *     speak TLS
   * @throws IOException if the connection has ended, or the TLS handler could not be made
   */
  public abstract F startTls(TlsSettings settings, String host, int port, String what) throws IOException;

  /** The handshake's future, or null when none has started. */
  public abstract F handshake();

  /**
   * Why a TLS handshake failed as the library reported it, when that says more than the
   * connection's own failure; null otherwise (the default).
   */
  protected Throwable handshakeFailure() {
    return null;
  }

  /**
   * True when {@code writeFailure}, a write's own failure, is the library's way of saying the
   * connection was already closed (by the peer): the send failed because of that close.
   */
  protected abstract boolean isClosedConnection(Throwable writeFailure);

  // ---- For subclasses.

  /** Marks suspension of reads useless on this connection (no backpressure to give). */
  protected final void notSuspendable() {
    suspendable = false;
  }

  /**
   * Has the buffer watch the start of the stream for a TLS alert from {@code peer} (see
   * {@link InboundBuffer#expectPlaintextFrom}).
   */
  protected final void expectPlaintextFrom(SocketAddress peer) {
    lock.lock();
    try {
      inbound.expectPlaintextFrom(peer);
    } finally {
      lock.unlock();
    }
  }

  /** The refusal of a STARTTLS upgrade for plaintext that arrived past the upgrade point. */
  protected static StartTlsInjectionException injection(byte[] injected) {
    return new StartTlsInjectionException("refusing STARTTLS: " + injected.length
        + " plaintext bytes arrived after the upgrade point, before the handshake: "
        + ProtocolViolationException.quote(injected)
        + " (a server never sends them; an attacker injecting commands does)");
  }

  /**
   * Under the lock: refuses, as an injection, bytes buffered unread at a STARTTLS upgrade point.
   *
   * @throws StartTlsInjectionException if anything is buffered
   */
  protected final void checkNothingBuffered() throws StartTlsInjectionException {
    if (inbound.size() != 0) {
      throw injection(inbound.takeAll());
    }
  }

  /**
   * Under the lock: throws if this state is closed.
   *
   * @throws TransportClosedException if it is
   */
  protected final void checkOpen() throws TransportClosedException {
    String because = closedBecause;
    if (because != null) {
      throw new TransportClosedException("transport is closed: " + because);
    }
  }

  // ---- The I/O side: called by the subclass on whichever thread delivers the event.

  /**
   * Buffers {@code message} (see {@link #append}) and returns the reader's wake-up for the caller
   * to run with {@link #runWakeup} once it is done with the message; or null. Ignored once
   * closed. A refused message ends the connection with the refusal, and its wake-ups run here.
   */
  protected final Runnable onInput(M message) {
    Runnable toRun;
    Runnable end = null;
    boolean suspend = false;
    lock.lock();
    try {
      if (closedBecause != null) {
        return null;
      }
      IOException refused = append(message);
      if (refused != null) {
        if (failure == null) {
          failure = refused;
        }
        arrived = true;
        ended = true;
        end = takeEndWakeup();
        toRun = takeWakeup();
      } else {
        arrived = true;
        int size = inbound.size();
        if (size > highWaterMark) {
          highWaterMark = size;
        }
        if (size > inboundLimit && size >= wanted && suspendable) {
          if (!suspendWanted) {
            suspendWanted = true;
            suspensions++;
            suspend = true;
          } else if (reassertsTraffic) {
            // Asserted on every message over the limit, which also repairs a lost suspension.
            suspend = true;
          }
        }
        toRun = takeWakeup();
      }
    } finally {
      lock.unlock();
    }
    if (suspend) {
      applyTraffic(true);
    }
    if (end != null) {
      runWakeup(toRun);
      runWakeup(end);
      return null;
    }
    return toRun;
  }

  /** The connection closed, whoever closed it: end of stream after what is buffered. */
  public final void onClosed() {
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
      toRun = takeWakeup();
      end = takeEndWakeup();
    } finally {
      lock.unlock();
    }
    runWakeup(toRun);
    runWakeup(end);
  }

  /**
   * The connection failed with {@code cause}, which readers see unless the stream had already
   * ended cleanly.
   */
  public final void onFailure(Throwable cause) {
    Runnable toRun;
    Runnable end;
    lock.lock();
    try {
      if (failure == null && !inbound.isEof()) {
        failure = cause instanceof IOException ? (IOException) cause : new IOException(cause);
      }
      arrived = true;
      ended = true;
      toRun = takeWakeup();
      end = takeEndWakeup();
    } finally {
      lock.unlock();
    }
    runWakeup(toRun);
    runWakeup(end);
  }

  private Runnable takeEndWakeup() {
    Runnable toRun = endWakeup;
    endWakeup = null;
    return toRun;
  }

  private Runnable takeWakeup() {
    Runnable toRun = wakeup;
    wakeup = null;
    return toRun;
  }

  /** Runs a wake-up taken from this state, if any; one that throws is logged, not passed on. */
  protected static void runWakeup(Runnable toRun) {
    if (toRun == null) {
      return;
    }
    try {
      toRun.run();
    } catch (RuntimeException | Error e) {
      LOG.error("a wake-up failed; its session may never resume", e);
    }
  }

  // ---- TLS.

  /** The negotiated TLS session, or null before a handshake has completed. */
  public final SSLSession tlsSession() {
    return tlsSession;
  }

  /**
   * After a handshake wait ended (not by time): null if the handshake completed; otherwise why
   * not, as the caller reports it: the injection refused, the transport closed, or a
   * {@link io.weft.transport.TlsHandshakeException} saying what failed.
   */
  public final IOException tlsFailure(String what) {
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
      Throwable cause = handshakeFailure();
      if (cause == null) {
        // The failure that closed the connection says more than "closed".
        cause = failure;
      }
      if (cause == null) {
        cause = new EOFException("the peer closed the connection");
      }
      return Tls.handshakeFailed(what, cause);
    } finally {
      lock.unlock();
    }
  }

  // ---- The reader's side.

  /** As {@link InboundBuffer#describeUnread}, for a read's timeout message. */
  public final String describeUnread() {
    lock.lock();
    try {
      return inbound.describeUnread();
    } finally {
      lock.unlock();
    }
  }

  /** As {@link InboundBuffer#pollLine}, or throws the failure or close that ended input. */
  @Override
  public final String pollLine(int limit, boolean strict, Charset charset) throws IOException {
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
  public final boolean pollFully(byte[] dst, int offset, int length) throws IOException {
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
  public final int poll(byte[] dst, int offset, int length) throws IOException {
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
  public final boolean isDrained() throws IOException {
    lock.lock();
    try {
      checkOpen();
      return inbound.isDrained();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Records that the reader must wait for {@code want} bytes in all; returns true when reading
   * must resume for them to come (it is suspended with less buffered).
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
   * A fresh exception for the failure that ended the connection, of the same kind where it is a
   * {@link SocketException} (a reset reads as {@code SocketException: Connection reset}, as on
   * a plain socket), thrown on the reader's own stack with the I/O thread's as its cause.
   */
  private IOException failureException() {
    IOException f = failure;
    IOException alert = Tls.alertAfterHandshake(f, tlsSession);
    if (alert != null) {
      return alert;
    }
    if (f instanceof SocketException) {
      SocketException e = new SocketException(f.getMessage());
      e.initCause(f);
      return e;
    }
    return new IOException("connection failed: " + f, f);
  }

  /**
   * Marks the start and the end of a reader's wait (blocked, spinning or suspended). Only
   * {@link #isReaderWaiting} reads it.
   */
  public final void readerWaiting(boolean waiting) {
    readerWaiting = waiting;
  }

  /**
   * True while a reader waits for input: blocked, spinning or suspended. For tests that must
   * act only once a read is pending, and for diagnostics.
   */
  public final boolean isReaderWaiting() {
    return readerWaiting;
  }

  /**
   * Registers {@code wakeup} to run once, when
   * input next arrives (see the class javadoc), and returns true; or returns false, without
   * registering anything, when input has already arrived and the caller should poll again now.
   *
   * <p>The wake-up runs on the thread that delivers the event (an I/O thread; for MINA's in-VM
   * pipe the peer's writing thread), or the thread that calls {@link #close}. It runs outside
   * this object's lock and must be quick and must not block: make a session ready, or resume it
   * right there on a loop thread. It runs at most once per registration.
   *
   * @throws IllegalStateException if a wake-up is already registered
   */
  public final boolean wakeWhenReadable(Runnable wakeup) {
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
  public final boolean inputArrived() {
    return arrived || closedBecause != null;
  }

  /**
   * Forgets the wake-up registered with {@link #wakeWhenReadable}, if any: the wait it served
   * has ended another way (timed out), and its owner may register a new one. Never waits.
   */
  public final void cancelWakeup() {
    lock.lock();
    try {
      wakeup = null;
    } finally {
      lock.unlock();
    }
  }

  // ---- The writer's side, and waits for library futures.

  /**
   * Throws if nothing can be sent any more: closed by its owner
   * ({@link TransportClosedException}), failed (the failure, as a reader sees it), or closed by
   * the peer ({@link PeerClosedException}). Never waits.
   *
   * @throws IOException why nothing can be sent
   */
  public final void checkWritable(String what) throws IOException {
    IOException e = endedException(what, null);
    if (e != null) {
      throw e;
    }
  }

  /**
   * Why a send that did not complete failed, from this state and the write's own failure
   * ({@code cause}, may be null); null if the connection has not ended and {@code cause} says
   * nothing of its end (see {@link #isClosedConnection}).
   */
  public final IOException endedException(String what, Throwable cause) {
    lock.lock();
    try {
      String because = closedBecause;
      if (because != null) {
        return new TransportClosedException("transport closed during " + what + ": " + because);
      }
      if (failure != null) {
        return failureException();
      }
      if (ended || (cause != null && isClosedConnection(cause))) {
        return new PeerClosedException("the peer closed the connection; " + what + " not sent");
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * After the wait for {@code written}, a write's future, ended (not by time): returns if it was
   * written; otherwise throws why not: the connection's end or failure, or the write's own.
   */
  public final void checkWritten(F written) throws IOException {
    if (isWritten(written)) {
      return;
    }
    Throwable cause = isDone(written) ? failureOf(written) : null;
    writeFailed(cause);
    IOException ended = endedException("flush", cause);
    if (ended != null) {
      throw ended;
    }
    throw new IOException("write failed: " + cause, cause);
  }

  /** True once the connection has closed or failed, whoever ended it. Never waits. */
  public final boolean hasEnded() {
    return ended || closedBecause != null;
  }

  /**
   * Registers {@code wakeup} to run once when the connection closes or fails, whoever ends it,
   * and returns true; or returns false, registering nothing, if it has already ended. For a
   * wait on a library future (a write, a connect, a handshake), which the close itself does not
   * always complete. The same rules as {@link #wakeWhenReadable}: quick, never blocking, at most
   * once.
   *
   * @throws IllegalStateException if one is already registered
   */
  public final boolean wakeWhenEnded(Runnable wakeup) {
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
  public final void cancelEndWakeup() {
    lock.lock();
    try {
      endWakeup = null;
    } finally {
      lock.unlock();
    }
  }

  // ---- Closing.

  /**
   * Closes this state and its connection (without flushing), wakes any waiting reader or
   * registered wake-up, and discards buffered input. Returns false if it was already closed.
   * Safe from any thread, I/O threads included: it never waits.
   */
  public final boolean close(String because) {
    Runnable toRun;
    Runnable end;
    lock.lock();
    try {
      if (closedBecause != null) {
        return false;
      }
      closedBecause = because;
      inbound.clear();
      toRun = takeWakeup();
      end = takeEndWakeup();
    } finally {
      lock.unlock();
    }
    // A finished transport may stay reachable from its owner's code; its connection need not.
    disconnect();
    runWakeup(toRun);
    runWakeup(end);
    return true;
  }

  /** True once {@link #close} has been called. */
  public final boolean isClosed() {
    return closedBecause != null;
  }

  /** Why this was closed, or null while open. */
  public final String closedBecause() {
    return closedBecause;
  }

  // ---- Read suspension.

  /**
   * Applies the wanted read suspension to the connection again: for a library that can lose a
   * suspend or a resume (MINA 2.2 changes a TCP session's interest set by read-modify-write from
   * whichever thread asks, racing with its I/O thread's own changes). A lost suspension is
   * repaired by the next message over the limit; a lost resume by a waiting reader calling this
   * now and then, which the waits do once the connection has ever been suspended (see
   * {@link #needsReassertion}).
   * Never waits.
   */
  public final void reassertTraffic() {
    applyTraffic(suspendWanted);
  }

  /**
   * True when a reader waiting on this connection should wake every {@link #REASSERT_NANOS} to
   * {@link #reassertTraffic()}: the library can lose a resume, and reads have been suspended.
   */
  public final boolean needsReassertion() {
    return reassertsTraffic && suspensions > 0;
  }

  /**
   * Suspends or resumes reading, then re-reads the wanted state and corrects until it stops
   * changing. The I/O side only ever asks to suspend and the reader only to resume; whichever
   * call comes last was made after the last change of the wanted state had been read, so the
   * connection ends in the wanted state without a lock around the library calls. On MINA's
   * in-VM pipe a resume delivers the queued messages inline, and their suspension happens
   * inline too, so one resume never hands over the whole queue.
   */
  private void applyTraffic(boolean suspend) {
    for (;;) {
      if (!suspendReading(suspend)) {
        return;
      }
      boolean now = suspendWanted;
      if (now == suspend) {
        return;
      }
      suspend = now;
    }
  }

  // ---- Diagnostics.

  /** Bytes buffered now. For tests and diagnostics. */
  public final int buffered() {
    lock.lock();
    try {
      return inbound.size();
    } finally {
      lock.unlock();
    }
  }

  /** The capacity of the inbound buffer's array now. For tests and diagnostics. */
  public final int bufferCapacity() {
    lock.lock();
    try {
      return inbound.capacity();
    } finally {
      lock.unlock();
    }
  }

  /** The most bytes ever buffered at once. For tests and diagnostics. */
  public final int highWaterMark() {
    lock.lock();
    try {
      return highWaterMark;
    } finally {
      lock.unlock();
    }
  }

  /** How many times reading from the peer was suspended. For tests and diagnostics. */
  public final int suspensions() {
    return suspensions;
  }
}
