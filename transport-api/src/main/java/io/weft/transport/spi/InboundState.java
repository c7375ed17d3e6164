package io.weft.transport.spi;

import io.weft.transport.LineParser;
import io.weft.transport.TransportClosedException;
import java.io.IOException;
import java.net.SocketException;
import java.nio.charset.Charset;
import java.util.concurrent.TimeUnit;

/**
 * The inbound half of a connection's state, which a transport over an I/O library (MINA, Netty)
 * shares with the library's I/O threads: the bounded inbound buffer, end of stream, failure and
 * closed state, and the wake-ups of a reader (or of a wait for a future) that waits.
 * {@link ConnectionState} adds the outbound half and TLS; a subclass of that per library feeds
 * it the library's events. For transport implementations, not protocol code.
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
 * failure, or a close. Then the caller polls again. A wait for a library future registers
 * {@link #wakeWhenEnded} beside the future's own listener: it also ends when the connection
 * ends, whoever ends it, and the caller tells which ended it.
 *
 * <p><b>Bounding.</b> When more than {@code inboundLimit} bytes are buffered, reading from the
 * peer is suspended ({@link ReadSuspension}); it resumes when a reader drains the buffer below
 * half the limit. The buffer can overshoot the limit by what the library delivers before the
 * suspension takes effect: one or two of its reads. A pending read that needs more than the
 * limit (a long line, a large {@code readFully}) lifts the limit to what it asks for, and no
 * further: its byte count, or its line limit plus the terminator.
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
 *
 * <p><b>Threads.</b> One reader at a time (the transport's session); the I/O side may run on
 * any thread at the same time; {@link #close} from any thread. Wake-ups run outside this
 * object's lock, on the thread that delivers the event: a session resumed by one may run right
 * there and call back into this object. One {@link LoopConfinedLock} guards the buffer and the
 * state; no library call that can run another connection's callbacks is made under it (MINA's
 * in-VM pipe runs the peer's handler inline on the writer's thread), so read suspension is
 * decided under the lock and applied after it.
 *
 * <p><b>Confinement.</b> A transport whose library delivers a connection's input on one loop
 * thread says so, on that thread, with {@link #inputDeliveredOnCurrentThread()}. The state is then
 * confined to the loop at the first poll a reader makes there: a continuation resumed on its
 * channel's event loop. From then on every section on that thread (the I/O side's deliveries, and
 * the polls and wake-up registrations of a session resumed there) takes no lock and no
 * compare-and-set; any other thread (a session on a worker, a close from elsewhere, a timer) takes
 * the lock and excludes the loop as a plain lock would (see {@link LoopConfinedLock}). Where no
 * reader ever polls on the loop (the blocking modes, {@code resumeOnWorkers}), nothing is bound
 * and every section takes the plain lock, as before: the loop's confinement would only move the
 * reader onto the slow path, which costs it a fence per section.
 *
 * @param <M> the type of the library's inbound messages
 */
public abstract class InboundState<M> extends InboundWakeups implements Inbound {
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

  /** The received bytes; guarded by {@link #lock}. */
  protected final InboundBuffer inbound = new InboundBuffer(INITIAL_CAPACITY);
  private final int inboundLimit;
  private final int resumeBelow;
  private final ReadSuspension suspension;


  /** What ended the connection, or null; guarded by {@link #lock}. */
  protected IOException failure;
  /** Guarded by lock; read by {@link ConnectionState#highWaterMark()}. */
  int highWaterMark;
  /** Bytes the pending read needs buffered (0 when none is pending): the limit is lifted to it. */
  private int wanted;
  /** The loop thread that delivers the input (see {@link #inputDeliveredOnCurrentThread()}), or null. */
  private volatile Thread loop;

  /** The reply-timing stamps of the transport over this state (see {@link ReplyTiming}). */
  final ReplyStamps replies = new ReplyStamps();
  /** The first arrival's watcher of the transport over this state (see {@link ReportsArrival}). */
  final ArrivalNotice heard = new ArrivalNotice();

  private static final int DISCONNECTING = 1;
  private static final int DISCONNECTED = 2;
  private static final int DISCONNECT_FAILED = 3;
  /**
   * 0 (open), then {@code DISCONNECTING} while the first close calls {@link #disconnect}, then
   * {@code DISCONNECTED}; or {@code DISCONNECT_FAILED} if it threw, from which the next close
   * moves it to {@code DISCONNECTING} again. Moved out of 0 or {@code DISCONNECT_FAILED} under the
   * lock; set after the call by the one thread that made it.
   */
  private volatile int disconnectStep;

  /**
   * An empty buffer, reading from the peer on.
   *
   * @param inboundLimit bytes buffered above which reading from the peer is suspended
   * @param reassertsTraffic true when the library can lose a suspend or resume (MINA 2.2): every
   *     message over the limit then asks to suspend again, and a reader that waits re-asserts the
   *     resume every {@link #REASSERT_NANOS}
   * @throws IllegalArgumentException if {@code inboundLimit < 2}
   */
  protected InboundState(int inboundLimit, boolean reassertsTraffic) {
    if (inboundLimit < 2) {
      throw new IllegalArgumentException("inboundLimit < 2: " + inboundLimit);
    }
    this.inboundLimit = inboundLimit;
    this.resumeBelow = inboundLimit / 2;
    this.suspension = new ReadSuspension(reassertsTraffic);
  }

  // ---- The hooks each library fills in.

  /**
   * Suspends ({@code true}) or resumes reading from the peer. Called outside the lock, from any
   * thread; must not wait. Returns false when there is no connection (not yet bound, or
   * closed): nothing was done.
   *
   * @param suspend true to stop reading from the socket, false to start again
   * @return true if the library was asked; false when there is no connection
   */
  protected abstract boolean suspendReading(boolean suspend);

  /**
   * Closes the library's connection without flushing and forgets it; outside the lock. Called
   * once, and again by a later {@link #close} only if it threw (the heap ran out in the library's
   * close, say): then it must close what the failed call left open.
   */
  protected abstract void disconnect();

  /**
   * Appends {@code message}'s bytes to {@link #inbound}, under the lock; or refuses it, appending
   * nothing, and returns why (the connection then ends with that failure).
   *
   * @param message one inbound message, as the library delivers it
   * @return null when appended; otherwise why it was refused (a TLS alert where plaintext was
   *     expected, say)
   */
  protected abstract IOException append(M message);

  @Override
  final boolean inputEnded() {
    return failure != null || inbound.isEof();
  }

  // ---- For subclasses.

  /**
   * Says that the current thread, a loop thread (a MINA processor's, a Netty event loop's),
   * delivers this connection's input: the first reader's poll made on it then confines this state
   * to it (see the class javadoc). Call it on that thread; the first thread named stays named, so a
   * later call from another thread changes nothing. Cheap enough to call on every delivery.
   */
  protected final void inputDeliveredOnCurrentThread() {
    if (loop == null) {
      loop = Thread.currentThread();
    }
  }

  /**
   * Whether a thread has been named with {@link #inputDeliveredOnCurrentThread()}.
   *
   * @return true once one has
   */
  protected final boolean hasInputLoop() {
    return loop != null;
  }

  /**
   * Confines this state to the current thread now, whether or not a reader runs there: its
   * sections then take no lock (see {@link LoopConfinedLock}); other threads' sections stay
   * mutually exclusive with them. Call it outside any section. The first thread bound stays bound:
   * a later call from another thread changes nothing.
   *
   * @return true if this state is confined to the current thread; false if to another, or if the
   *     caller holds the lock (then nothing is bound)
   */
  protected final boolean confineToCurrentThread() {
    return lock.bindOwner();
  }

  /**
   * A reader's poll on the loop that delivers the input (a continuation resumed there) confines
   * this state to it; outside any section. Elsewhere: one volatile load and a compare.
   */
  private void confineIfOnLoop() {
    if (loop == Thread.currentThread() && !lock.hasOwner()) {
      lock.bindOwner();
    }
  }

  /**
   * Whether this state is confined to a thread: by {@link #confineToCurrentThread()}, or by a
   * reader's poll on the loop named with {@link #inputDeliveredOnCurrentThread()}.
   *
   * @return true once it is
   */
  public final boolean isConfined() {
    return lock.hasOwner();
  }

  /**
   * Whether this state is confined to the current thread (see {@link #isConfined()}).
   *
   * @return true on the bound loop thread
   */
  public final boolean isConfinedToCurrentThread() {
    return lock.isOwner();
  }

  /**
   * How many sections the bound loop thread has run without the lock (see
   * {@link LoopConfinedLock#confinedSections()}). Read it on that thread. For tests and
   * diagnostics.
   *
   * @return the count since the state was made
   */
  public final long confinedSections() {
    return lock.confinedSections();
  }

  /** Marks suspension of reads useless on this connection (no backpressure to give). */
  protected final void notSuspendable() {
    suspension.impossible();
  }

  // ---- The I/O side: called by the subclass on whichever thread delivers the event.

  /**
   * Buffers {@code message} (see {@link #append}) and returns the reader's wake-up for the caller
   * to run with {@link #runWakeup} once it is done with the message; or null. Ignored once
   * closed. A refused message ends the connection with the refusal, and its wake-ups run here.
   * May ask the library to suspend reading, outside the lock, when the buffer passes its limit.
   *
   * @param message one inbound message, as the library delivers it
   * @return the wake-up to run, or null when there is none (or it has run already); at the
   *     connection's first bytes it also runs the first arrival's watcher ({@link ReportsArrival}),
   *     after the wake-up
   */
  protected final Runnable onInput(M message) {
    Runnable toRun;
    Runnable end = null;
    boolean suspend = false;
    boolean bytes = false;
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
        replies.arrived();
        bytes = true;
        int size = inbound.size();
        if (size > highWaterMark) {
          highWaterMark = size;
        }
        suspend = size > inboundLimit && size >= wanted && suspension.wantSuspended();
        toRun = takeWakeup();
      }
    } finally {
      lock.unlock();
    }
    if (suspend) {
      suspension.apply(this, true);
    }
    if (bytes) {
      // Not run here: the watcher may run another session (a runner's connect window wakes the
      // next session, which may run inline on this loop thread). It runs with this session's
      // wake-up, where the caller runs that: after the caller is done with the input (Netty has
      // released its buffer) and outside the caller's handling of its own errors (an
      // OutOfMemoryError buffering this input fails this session only), in runWakeup, which
      // logs what it throws.
      Runnable watcher = heard.take();
      if (watcher != null) {
        toRun = withWatcher(toRun, watcher);
      }
    }
    if (end != null) {
      runWakeup(toRun);
      runWakeup(end);
      return null;
    }
    return toRun;
  }

  /** This session's wake-up (or none), then the first arrival's watcher. */
  private static Runnable withWatcher(Runnable wakeUp, Runnable watcher) {
    if (wakeUp == null) {
      return watcher;
    }
    try {
      return new ThenWatcher(wakeUp, watcher);
    } catch (OutOfMemoryError e) {
      // No room for the pair (once per connection): the watcher runs here, as it must run.
      watcher.run();
      return wakeUp;
    }
  }

  /** A wake-up and the first arrival's watcher, run in that order, the watcher whatever the wake-up does. */
  private static final class ThenWatcher implements Runnable {
    private final Runnable wakeUp;
    private final Runnable watcher;

    ThenWatcher(Runnable wakeUp, Runnable watcher) {
      this.wakeUp = wakeUp;
      this.watcher = watcher;
    }

    @Override
    public void run() {
      try {
        wakeUp.run();
      } finally {
        watcher.run();
      }
    }
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
   * ended cleanly. Wakes the reader and any end wake-up, on the calling thread.
   *
   * @param cause the library's report; one that is not an {@link IOException} is wrapped in one
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

  // ---- The reader's side.

  /**
   * As {@link InboundBuffer#describeUnread}, for a read's timeout message.
   *
   * @return how many bytes are buffered unread, and how they start
   */
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
    confineIfOnLoop();
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

  /**
   * As {@link InboundBuffer#pollLine(int, LineParser)}, or throws the failure or close that ended
   * input. The parser runs under this state's lock, on the bytes where they arrived.
   */
  @Override
  public final Object pollLine(int limit, LineParser<?> parser) throws IOException {
    confineIfOnLoop();
    Object value = null;
    ParsedLineFailure failure = null;
    boolean needMore;
    boolean resume;
    lock.lock();
    try {
      checkOpen();
      wanted = 0;
      try {
        value = inbound.pollLine(limit, parser);
      } catch (ParsedLineFailure e) {
        // The line was taken, as when the parser returns; whatever the parser threw (an Error too)
        // ends this poll as a parse does, read resumption included.
        failure = e;
      }
      needMore = value == NO_LINE_YET;
      resume = needMore && needMore((long) limit + 2L);
    } finally {
      lock.unlock();
    }
    afterPoll(needMore, resume);
    if (failure != null) {
      throw failure;
    }
    return value;
  }

  /** As {@link InboundBuffer#pollFully}, or throws the failure or close that ended input. */
  @Override
  public final boolean pollFully(byte[] dst, int offset, int length) throws IOException {
    confineIfOnLoop();
    boolean done;
    boolean resume;
    lock.lock();
    try {
      checkOpen();
      wanted = 0;
      done = inbound.pollFully(dst, offset, length);
      // More than is buffered: bytes may be held back while the start of the stream is undecided.
      resume = !done && needMore(Math.max(length, inbound.size() + 1L));
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
    confineIfOnLoop();
    int n;
    boolean resume;
    lock.lock();
    try {
      checkOpen();
      wanted = 0;
      n = inbound.poll(dst, offset, length);
      resume = n == NO_BYTES_YET && needMore(inbound.size() + 1L);
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
    return inbound.size() < wanted && suspension.wantResumed();
  }

  private void afterPoll(boolean needMore, boolean resume) {
    if (resume) {
      suspension.apply(this, false);
    } else if (!needMore) {
      resumeIfDrained();
    }
  }

  private void resumeIfDrained() {
    if (!suspension.isWanted()) {
      return;
    }
    boolean resume = false;
    lock.lock();
    try {
      resume = inbound.size() < resumeBelow && suspension.wantResumed();
    } finally {
      lock.unlock();
    }
    if (resume) {
      suspension.apply(this, false);
    }
  }

  /**
   * The TLS session once its handshake completed, so that a fatal alert after it reads as
   * {@link io.weft.transport.TlsAlertException} ({@link Tls#alertAfterHandshake}). By default
   * null: a state without TLS.
   *
   * @return the negotiated session, or null
   */
  protected javax.net.ssl.SSLSession handshakenSession() {
    return null;
  }

  /**
   * A fresh exception for the failure that ended the connection, of the same kind where it is a
   * {@link SocketException} (a reset reads as {@code SocketException: Connection reset}, as on
   * a plain socket), thrown on the reader's own stack with the I/O thread's as its cause; a
   * fatal TLS alert after the handshake reads as {@link io.weft.transport.TlsAlertException}.
   * Call it under the lock, with {@link #failure} set.
   *
   * @return a new exception for the failure
   */
  protected final IOException failureException() {
    IOException f = failure;
    IOException alert = Tls.alertAfterHandshake(f, handshakenSession());
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

  // ---- Closing.

  /**
   * Closes this state and its connection (without flushing), wakes any waiting reader or
   * registered wake-up, and discards buffered input. Returns false if it was already closed.
   * Safe from any thread, I/O threads included: it never waits. If the library's close throws,
   * this throws it, the state stays closed, and the next call closes the connection again (the
   * connection's close is then still to be reported, see {@link ReportsClose}).
   *
   * @param because why, which every later operation's {@link TransportClosedException} names
   * @return true if this call closed it, or closed the connection a failed close had left open;
   *     false if it was already closed
   */
  public final boolean close(String because) {
    Runnable toRun = null;
    Runnable end = null;
    lock.lock();
    try {
      if (closedBecause != null) {
        if (disconnectStep != DISCONNECT_FAILED) {
          return false;
        }
      } else {
        closedBecause = because;
        inbound.clear();
        toRun = takeWakeup();
        end = takeEndWakeup();
      }
      disconnectStep = DISCONNECTING;
    } finally {
      lock.unlock();
    }
    try {
      // A finished transport may stay reachable from its owner's code; its connection need not.
      disconnect();
      disconnectStep = DISCONNECTED;
    } catch (RuntimeException | Error e) {
      disconnectStep = DISCONNECT_FAILED;
      // Woken all the same (a reader sees the state closed); the library's error is the one
      // thrown, even if telling of a failed wake-up fails too (the heap is likely short).
      wakeKeeping(toRun);
      wakeKeeping(end);
      throw e;
    }
    runWakeup(toRun);
    runWakeup(end);
    return true;
  }

  /** {@link #runWakeup}, throwing nothing: for a close that has an error of its own to throw. */
  private static void wakeKeeping(Runnable toRun) {
    try {
      runWakeup(toRun);
    } catch (RuntimeException | Error lost) {
      // Only its log line failed; the wake-up itself ran or failed inside runWakeup.
    }
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
    suspension.reassert(this);
  }

  /**
   * True when a reader waiting on this connection should wake every {@link #REASSERT_NANOS} to
   * {@link #reassertTraffic()}: the library can lose a resume, and reads have been suspended.
   *
   * @return true when the wait should be cut into slices of {@link #REASSERT_NANOS}
   */
  public final boolean needsReassertion() {
    return suspension.needsReassertion();
  }

  /**
   * How many times reading from the peer was suspended. For tests and diagnostics.
   *
   * @return the count since the connection was made
   */
  public final int suspensions() {
    return suspension.suspensions();
  }
}
