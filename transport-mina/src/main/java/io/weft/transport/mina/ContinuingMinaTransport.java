package io.weft.transport.mina;

import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingReads;
import io.weft.continuations.spi.SuspendingWaits;
import io.weft.continuations.spi.WaitRegistration;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.internal.ReadArguments;
import io.weft.transport.mina.internal.IoThreads;
import io.weft.transport.mina.internal.SessionState;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.commons.javaflow.api.continuable;
import org.apache.mina.core.future.IoFuture;
import org.apache.mina.core.future.WriteFuture;

/**
 * A {@link Transport} over one MINA session, TCP or in-VM pipe, that never blocks a thread in
 * {@code CONTINUATIONS} mode: each wait on a MINA {@code IoFuture} or on inbound data suspends
 * the running continuation through {@link Suspend#await}, and the I/O event that ends the wait
 * makes the session ready again. Off a continuation (SYNC, THREADS, plain code) the same waits
 * block, so it honours the {@link Transport} contract everywhere, like {@link MinaTransport}.
 *
 * <p>Fast path: a read that finds its data buffered, or a flush whose future is already done
 * (the in-VM pipe completes writes inline), returns without suspending. A connector may be
 * configured to spin briefly before suspending (see
 * {@link ContinuingMinaConnector.Builder#spinBeforeSuspend}).
 *
 * <p>Every wait refuses at once, with {@link IllegalStateException}, to run on a MINA I/O
 * thread. Open one with {@link ContinuingMinaConnector#connect}; closing the connector closes
 * it. Its waiting methods carry {@code @continuable} and are rewritten at build time.
 */
public final class ContinuingMinaTransport extends AbstractMinaTransport {
  private final SuspendingWaits waits;
  private final SuspendingReads reads;

  ContinuingMinaTransport(SessionState state, Timeout timeout, long sessionStartNanos, MinaConnector owner,
      SocketAddress remote, SuspendingWaits waits) {
    super(state, timeout, sessionStartNanos, owner, remote);
    this.waits = waits;
    reads = new SuspendingReads(state, new SuspendingWaiter(), waits.immediate());
  }

  @Override
  @continuable
  public String readLine(int limit) throws IOException {
    return reads.readLine(limit, false, StandardCharsets.UTF_8);
  }

  @Override
  @continuable
  public String readLine(int limit, Charset charset) throws IOException {
    return reads.readLine(limit, false, charset);
  }

  @Override
  @continuable
  public String readLineStrict(int limit) throws IOException {
    return reads.readLine(limit, true, StandardCharsets.UTF_8);
  }

  @Override
  @continuable
  public String readLineStrict(int limit, Charset charset) throws IOException {
    return reads.readLine(limit, true, charset);
  }

  @Override
  @continuable
  public void readFully(byte[] dst, int offset, int length) throws IOException {
    reads.readFully(dst, offset, length);
  }

  @Override
  @continuable
  public byte[] readBytes(int byteCount) throws IOException {
    return reads.readFully(ReadArguments.newBytes(byteCount), 0, byteCount);
  }

  @Override
  @continuable
  public int read(byte[] dst, int offset, int length) throws IOException {
    return reads.read(dst, offset, length);
  }

  /**
   * How this transport's reads wait: through the connector's {@link SuspendingWaits}, called
   * straight from here so that the loop adds no frame of its own to the suspend path.
   */
  private final class SuspendingWaiter extends ReadWaiter implements SuspendingReads.Waiter, WaitRegistration {
    @Override
    @continuable
    public void awaitInput(String awaited) throws IOException {
      long wait = readWaitNanos(awaited);
      if (!waits.awaitInput(state, this, wait)) {
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
  public void write(byte[] src, int offset, int length) throws IOException {
    if (buffer(src, offset, length)) {
      send();
    }
  }

  @Override
  @continuable
  public void write(byte[] src) throws IOException {
    write(src, 0, src.length);
  }

  @Override
  @continuable
  public void write(String text) throws IOException {
    write(text, StandardCharsets.UTF_8);
  }

  @Override
  @continuable
  public void write(String text, Charset charset) throws IOException {
    if (buffer(text, charset)) {
      send();
    }
  }

  @Override
  @continuable
  public void writeLine(String line) throws IOException {
    if (bufferLine(line)) {
      send();
    }
  }

  @Override
  @continuable
  public void flush() throws IOException {
    checkOpen();
    send();
  }

  @Override
  @continuable
  public void startTls(TlsSettings settings) throws IOException {
    Objects.requireNonNull(settings, "settings");
    checkOpen();
    send();
    String what = handshakeWhat(settings);
    long wait = handshakeWaitNanos(settings, what);
    IoFuture handshake = beginStartTls(settings, what);
    awaitHandshake(handshake, wait, what);
  }

  /** Waits (suspending) for the handshake of implicit TLS, begun by the connect. */
  @continuable
  void awaitImplicitHandshake(TlsSettings settings) throws IOException {
    String what = handshakeWhat(settings);
    awaitHandshake(state.handshake(), handshakeWaitNanos(settings, what), what);
  }

  @continuable
  private void awaitHandshake(IoFuture handshake, long wait, String what) throws IOException {
    boolean ended;
    try {
      ended = waits.awaitDone(state, handshake, wait, what);
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
      IoThreads.checkMaySuspend("a flush");
      long wait = waitNanos("flush");
      WriteFuture written = startSend();
      if (written == null) {
        return;
      }
      if (!waits.awaitDone(state, written, wait, "flush")) {
        throw timedOut(wait, "flush");
      }
      checkWritten(written);
    } catch (IOException e) {
      throw fail(e);
    }
  }
}
