package io.weft.continuations.spi;

import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.spi.ConnectionState;
import io.weft.transport.spi.ConnectionTransport;
import io.weft.transport.spi.ReadArguments;
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
 * {@code readLine} → {@link SuspendingReads#readLine} → this transport's waiter (which takes
 * {@link SuspendingWaits#awaitInput}'s steps itself) → {@link Suspend#await}.
 *
 * <p>Lifecycle: made by its connector once the connect is done; closed by its owner, by a
 * failure that ends it, or by the connector. Its waiting methods carry {@code @continuable} and
 * are rewritten by this module's build.
 *
 * @param <F> the library's future type
 */
public abstract class SuspendingConnectionTransport<F> extends ConnectionTransport<F> {
  private final SuspendingWaits waits;
  private final SuspendingReads reads;

  /**
   * A transport over {@code state}, waiting through {@code waits}.
   *
   * @param state the connection's state
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started, for its deadline
   * @param forget tells the connector that this transport closed
   * @param remote the peer's address
   * @param waits the connector's waits
   * @param <S> the library's state type
   */
  protected <S extends ConnectionState<F, ?>> SuspendingConnectionTransport(S state, Timeout timeout, long sessionStartNanos,
      Consumer<? super S> forget, SocketAddress remote, SuspendingWaits waits) {
    super(state, timeout, sessionStartNanos, forget, remote);
    this.waits = waits;
    reads = new SuspendingReads(state, new SuspendingWaiter(), waits.immediate());
  }

  @Override
  @continuable
  public final String readLine(int limit) throws IOException {
    return reads.readLine(limit, false, StandardCharsets.UTF_8);
  }

  @Override
  @continuable
  public final String readLine(int limit, Charset charset) throws IOException {
    return reads.readLine(limit, false, charset);
  }

  @Override
  @continuable
  public final String readLineStrict(int limit) throws IOException {
    return reads.readLine(limit, true, StandardCharsets.UTF_8);
  }

  @Override
  @continuable
  public final String readLineStrict(int limit, Charset charset) throws IOException {
    return reads.readLine(limit, true, charset);
  }

  @Override
  @continuable
  public final void readFully(byte[] dst, int offset, int length) throws IOException {
    reads.readFully(dst, offset, length);
  }

  @Override
  @continuable
  public final byte[] readBytes(int byteCount) throws IOException {
    return reads.readFully(ReadArguments.newBytes(byteCount), 0, byteCount);
  }

  @Override
  @continuable
  public final int read(byte[] dst, int offset, int length) throws IOException {
    return reads.read(dst, offset, length);
  }

  /**
   * How this transport's reads wait: {@link SuspendingWaits#awaitInput}'s steps, with the
   * connector's waits and counters, taken in this frame and ending in {@link Suspend#await}, so
   * that neither the loop nor the wait adds a rewritten frame of its own to the suspend path; and
   * the registration of the reader's wake-up with the state, made once.
   */
  private final class SuspendingWaiter extends ReadWaiter implements SuspendingReads.Waiter, WaitRegistration {
    @Override
    @continuable
    public void awaitInput(long awaited) throws IOException {
      long wait = readWaitNanos(awaited);
      long start = SuspendingWaits.beginInputWait(state);
      boolean arrived = false;
      // No finally: a suspension unwinds this frame without running one, and it is no end.
      try {
        if (waits.spunForInput(state, start, wait)) {
          arrived = true;
        } else {
          for (long left = waits.firstLeft(start, wait); left > 0L; left = SuspendingWaits.left(wait, start)) {
            long slice = waits.slice(state, left);
            if (Suspend.await(this, slice)) {
              arrived = true;
              break;
            }
            if (!SuspendingWaits.nextSlice(state, slice, left)) {
              break;
            }
          }
        }
      } catch (IOException | RuntimeException e) {
        state.readerWaiting(false);
        throw e;
      }
      state.readerWaiting(false);
      if (!arrived) {
        throw readTimedOut(wait, awaited);
      }
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
    if (buffer(src, offset, length)) {
      send();
    }
  }

  @Override
  @continuable
  public final void write(byte[] src) throws IOException {
    write(src, 0, src.length);
  }

  @Override
  @continuable
  public final void write(String text) throws IOException {
    write(text, StandardCharsets.UTF_8);
  }

  @Override
  @continuable
  public final void write(String text, Charset charset) throws IOException {
    if (buffer(text, charset)) {
      send();
    }
  }

  @Override
  @continuable
  public final void writeLine(String line) throws IOException {
    if (bufferLine(line)) {
      send();
    }
  }

  @Override
  @continuable
  public final void flush() throws IOException {
    checkOpen();
    send();
  }

  @Override
  @continuable
  public final void startTls(TlsSettings settings) throws IOException {
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
