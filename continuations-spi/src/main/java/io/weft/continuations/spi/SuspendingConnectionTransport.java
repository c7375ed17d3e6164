package io.weft.continuations.spi;

import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.spi.ConnectionState;
import io.weft.transport.spi.ConnectionTransport;
import io.weft.transport.spi.ReadArguments;
import io.weft.transport.spi.Ticker;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.commons.javaflow.api.continuable;

/**
 * A {@link Transport} over an I/O library's connection state (transport-api's SPI
 * {@link ConnectionState}) that never blocks a thread in {@code CONTINUATIONS} mode: each wait
 * on one of the library's futures or on inbound data suspends the running continuation through
 * {@link SuspendingWaits} and {@link Suspend#await}, and the I/O event that ends the wait makes
 * the session ready again. Off a continuation (SYNC, THREADS, plain code) the same waits block,
 * so it honours the {@link Transport} contract everywhere. The library's public class
 * ({@code SuspendingMinaTransport}, {@code SuspendingNettyTransport}) extends this and adds only
 * its constructor.
 *
 * <p>Fast path: a read that finds its data buffered, or a flush whose bytes went to the socket at
 * once or whose future is already done, returns without suspending. A read's suspend path is
 * {@code readLine} → {@link SuspendingReads#readLine} (which takes the wait's steps, this
 * transport's waiter's, itself) → {@link Suspend#await}: three rewritten frames.
 *
 * <p>Every read, write, {@code flush} and {@code startTls} makes continuation mode's entry check
 * itself, first thing ({@link Suspend#checkEntry()}): a frame that was not rewritten and swallowed a
 * suspend is stopped at its next call here, before that call does anything. So the runtime hands
 * this transport to the session's task as it is, without the checked wrapper it puts in front of
 * other transports: one rewritten frame less on every suspend and resume.
 *
 * <p>Lifecycle: made by its connector once the connect is done; closed by its owner, by a
 * failure that ends it, or by the connector. Its waiting methods carry {@code @continuable} and
 * are rewritten by this module's build.
 *
 * @param <F> the library's future type
 */
public abstract class SuspendingConnectionTransport<F> extends ConnectionTransport<F> implements LineParsing {
  private final SuspendingWaits waits;
  private final SuspendingReads reads;
  private final SuspendingWaiter waiter;

  /**
   * A transport over {@code state}, waiting through {@code waits}.
   *
   * @param state the connection's state
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started, on {@code waits}' clock, for its deadline
   * @param forget tells the connector that this transport closed
   * @param remote the peer's address
   * @param waits the connector's waits, whose clock the session deadline reads too
   * @param <S> the library's state type
   */
  protected <S extends ConnectionState<F, ?>> SuspendingConnectionTransport(S state, Timeout timeout, long sessionStartNanos,
      Consumer<? super S> forget, SocketAddress remote, SuspendingWaits waits) {
    super(state, timeout, sessionStartNanos, forget, remote, waits.ticker());
    this.waits = waits;
    waiter = new SuspendingWaiter();
    reads = new SuspendingReads(state, waiter, waits.immediate());
  }

  /** This transport's waits; for tests of the SPI in this package. */
  SuspendingWaits waits() {
    return waits;
  }

  /** This transport's connection state; for tests of the SPI in this package. */
  ConnectionState<F, ?> connectionState() {
    return state;
  }

  /**
   * This transport's own read waiter, a {@link TimedRegistration} reused by every read; for tests
   * of the SPI in this package (a wait through it that took no reading of its own).
   */
  WaitRegistration readWaiter() {
    return waiter;
  }

  @Override
  @continuable
  public final String readLine(int limit) throws IOException {
    Suspend.checkEntry();
    return reads.readLine(limit, false, StandardCharsets.UTF_8);
  }

  @Override
  @continuable
  public final String readLine(int limit, Charset charset) throws IOException {
    Suspend.checkEntry();
    return reads.readLine(limit, false, charset);
  }

  @Override
  @continuable
  public final String readLineStrict(int limit) throws IOException {
    Suspend.checkEntry();
    return reads.readLine(limit, true, StandardCharsets.UTF_8);
  }

  @Override
  @continuable
  public final String readLineStrict(int limit, Charset charset) throws IOException {
    Suspend.checkEntry();
    return reads.readLine(limit, true, charset);
  }

  @Override
  @continuable
  public final <T> T parseLine(int limit, LineParser<T> parser) throws IOException {
    Suspend.checkEntry();
    return reads.parseLine(limit, parser);
  }

  @Override
  @continuable
  public final void readFully(byte[] dst, int offset, int length) throws IOException {
    Suspend.checkEntry();
    reads.readFully(dst, offset, length);
  }

  @Override
  @continuable
  public final byte[] readBytes(int byteCount) throws IOException {
    Suspend.checkEntry();
    return reads.readFully(ReadArguments.newBytes(byteCount), 0, byteCount);
  }

  @Override
  @continuable
  public final int read(byte[] dst, int offset, int length) throws IOException {
    Suspend.checkEntry();
    return reads.read(dst, offset, length);
  }

  /**
   * How this transport's reads wait: {@link SuspendingWaits#awaitInput}'s steps, with the
   * connector's waits and counters, taken as the steps of a {@link SuspendingReads.Waiter}, none
   * of which suspends: the read loop calls {@link Suspend#await} itself, so neither the loop nor
   * the wait adds a rewritten frame of its own to the suspend path; and the registration of the
   * reader's wake-up with the state, made once. What one wait needs between its steps is kept
   * here: the transport has one reader at a time.
   */
  private final class SuspendingWaiter extends ReadWaiter implements SuspendingReads.Waiter, TimedRegistration {
    /** The wait's bound, from the transport's timeout and the session's deadline. */
    private long wait;
    /** When the wait began. */
    private long start;
    /** What was left of the wait when its last suspend began. */
    private long left;
    /** The clock's reading that {@link #left} was worked out on, which its suspend is timed from. */
    private long from;
    /**
     * Whether {@link #from} was taken for the suspend about to be armed and not yet spent: set by
     * {@link #beginWait} and {@link #nextSlice}, spent by {@link #timedFrom()} and cleared when the
     * wait ends. A wait through this waiter that took no reading of its own ({@link
     * SuspendingWaits#awaitInput}) is then timed from the clock as it is armed, never from a
     * reading of an earlier wait.
     */
    private boolean fresh;

    @Override
    public long beginWait(long awaited) throws IOException {
      // One reading of the clock for the wait's bound (the session deadline's), its start and its
      // suspend's timeout (timedFrom): a read that suspends reads the clock once.
      long now = waits.ticker().nanoTime();
      long bound = readWaitNanos(awaited, now);
      long begun = waits.beginInputWait(state, now);
      try {
        if (waits.spunForInput(state, bound)) {
          state.readerWaiting(false);
          return 0L;
        }
        long firstFrom = waits.firstFrom(begun);
        long first = SuspendingWaits.left(bound, begun, firstFrom);
        if (first <= 0L) {
          throw readTimedOut(bound, awaited);
        }
        wait = bound;
        start = begun;
        left = first;
        from = firstFrom;
        fresh = true;
        return waits.slice(state, first);
      } catch (IOException | RuntimeException e) {
        state.readerWaiting(false);
        throw e;
      }
    }

    @Override
    public long nextSlice(long slice, long awaited) throws IOException {
      fresh = false;
      if (SuspendingWaits.nextSlice(state, slice, left)) {
        long now = waits.ticker().nanoTime();
        left = SuspendingWaits.left(wait, start, now);
        if (left > 0L) {
          from = now;
          fresh = true;
          return waits.slice(state, left);
        }
      }
      throw readTimedOut(wait, awaited);
    }

    @Override
    public Ticker timedOn() {
      return fresh ? waits.ticker() : null;
    }

    @Override
    public long timedFrom() {
      fresh = false;
      return from;
    }

    @Override
    public void endWait() {
      fresh = false;
      state.readerWaiting(false);
    }

    @Override
    public void abandonWait() {
      fresh = false;
      state.readerWaiting(false);
    }

    @Override
    public void register(Runnable wake) {
      if (!state.wakeWhenReadable(wake)) {
        wake.run();
      }
    }
  }

  @Override
  @continuable
  public final void write(byte[] src, int offset, int length) throws IOException {
    Suspend.checkEntry();
    if (buffer(src, offset, length)) {
      send();
    }
  }

  @Override
  @continuable
  public final void write(byte[] src) throws IOException {
    Suspend.checkEntry();
    // Not through write(src, 0, length): no frame of its own on the path of the flush's wait.
    if (buffer(src, 0, src.length)) {
      send();
    }
  }

  @Override
  @continuable
  public final void write(String text) throws IOException {
    Suspend.checkEntry();
    if (buffer(text, StandardCharsets.UTF_8)) {
      send();
    }
  }

  @Override
  @continuable
  public final void write(String text, Charset charset) throws IOException {
    Suspend.checkEntry();
    if (buffer(text, charset)) {
      send();
    }
  }

  @Override
  @continuable
  public final void writeLine(String line) throws IOException {
    Suspend.checkEntry();
    if (bufferLine(line)) {
      send();
    }
  }

  @Override
  @continuable
  public final void flush() throws IOException {
    Suspend.checkEntry();
    checkOpen();
    send();
  }

  @Override
  @continuable
  public final void startTls(TlsSettings settings) throws IOException {
    Suspend.checkEntry();
    Objects.requireNonNull(settings, "settings");
    checkOpen();
    send();
    String what = handshakeWhat(settings);
    long wait = handshakeWaitNanos(settings, what);
    F handshake = beginStartTls(settings, what);
    awaitHandshake(handshake, wait, what);
  }

  /**
   * Waits (suspending) for the handshake of implicit TLS, begun by the connect.
   *
   * @param settings the connector's TLS settings
   * @throws IOException why the handshake failed; this transport is then closed
   */
  @continuable
  protected final void awaitImplicitHandshake(TlsSettings settings) throws IOException {
    String what = handshakeWhat(settings);
    awaitHandshake(state.handshake(), handshakeWaitNanos(settings, what), what);
  }

  @continuable
  private void awaitHandshake(F handshake, long wait, String what) throws IOException {
    boolean ended;
    try {
      ended = waits.awaitDone(state, handshake, wait, what);
    } catch (SessionCancelledException e) {
      throw e; // the run's cancel, no failure of the transport: see SessionCancelledException
    } catch (IOException e) {
      throw fail(e);
    }
    if (!ended) {
      throw handshakeTimedOut(wait, what);
    }
    endHandshake(what);
  }

  @continuable
  private void send() throws IOException {
    if (!hasOutbound()) {
      return;
    }
    try {
      state.checkMaySuspend("a flush");
      long wait = waitNanos("flush");
      F written = startSend();
      if (written == null) {
        return;
      }
      if (!waits.awaitDone(state, written, wait, "flush")) {
        throw timedOut(wait, "flush");
      }
      state.checkWritten(written);
    } catch (SessionCancelledException e) {
      throw e; // the run's cancel, no failure of the transport: see SessionCancelledException
    } catch (IOException e) {
      throw fail(e);
    }
  }
}
