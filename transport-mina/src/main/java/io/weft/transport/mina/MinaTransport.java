package io.weft.transport.mina;

import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.internal.BlockingReads;
import io.weft.transport.internal.ReadArguments;
import io.weft.transport.mina.internal.IoThreads;
import io.weft.transport.mina.internal.SessionState;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.mina.core.future.IoFuture;
import org.apache.mina.core.future.WriteFuture;

/**
 * A {@link Transport} over one MINA session, TCP or in-VM pipe, that blocks the calling thread:
 * each operation issues the MINA call and waits for its outcome under the {@link Timeout}.
 * This is what {@code SYNC} and {@code THREADS} modes run on MINA; its sibling
 * {@link ContinuingMinaTransport} suspends a continuation instead.
 *
 * <p>Inbound bytes are buffered by Weft's own handler in a bounded per-session buffer (see
 * {@link SessionState}); a read waits only when that buffer cannot satisfy it. A flush writes
 * one {@code IoBuffer} and waits for its {@code WriteFuture}.
 *
 * <p>Every wait refuses at once, with {@link IllegalStateException}, to run on a MINA I/O
 * thread, where it could never end. Open one with {@link MinaConnector#connect}; closing the
 * connector closes it.
 */
public final class MinaTransport extends AbstractMinaTransport {
  private final BlockingReads reads;

  MinaTransport(SessionState state, Timeout timeout, long sessionStartNanos, MinaConnector owner,
      SocketAddress remote) {
    super(state, timeout, sessionStartNanos, owner, remote);
    reads = new BlockingReads(state, new BlockingWaiter());
  }

  @Override
  public String readLine(int limit) throws IOException {
    return reads.readLine(limit, false, StandardCharsets.UTF_8);
  }

  @Override
  public String readLine(int limit, Charset charset) throws IOException {
    return reads.readLine(limit, false, charset);
  }

  @Override
  public String readLineStrict(int limit) throws IOException {
    return reads.readLine(limit, true, StandardCharsets.UTF_8);
  }

  @Override
  public String readLineStrict(int limit, Charset charset) throws IOException {
    return reads.readLine(limit, true, charset);
  }

  @Override
  public void readFully(byte[] dst, int offset, int length) throws IOException {
    reads.readFully(dst, offset, length);
  }

  @Override
  public byte[] readBytes(int byteCount) throws IOException {
    return reads.readFully(ReadArguments.newBytes(byteCount), 0, byteCount);
  }

  @Override
  public int read(byte[] dst, int offset, int length) throws IOException {
    return reads.read(dst, offset, length);
  }

  /** How this transport's reads wait: blocked on the session state's condition. */
  private final class BlockingWaiter extends ReadWaiter implements BlockingReads.Waiter {
    @Override
    public void awaitInput(String awaited) throws IOException {
      long wait = readWaitNanos(awaited);
      if (!state.awaitInput(wait)) {
        throw readTimedOut(wait, awaited);
      }
    }
  }

  @Override
  public void write(byte[] src, int offset, int length) throws IOException {
    if (buffer(src, offset, length)) {
      send();
    }
  }

  @Override
  public void write(byte[] src) throws IOException {
    write(src, 0, src.length);
  }

  @Override
  public void write(String text) throws IOException {
    write(text, StandardCharsets.UTF_8);
  }

  @Override
  public void write(String text, Charset charset) throws IOException {
    if (buffer(text, charset)) {
      send();
    }
  }

  @Override
  public void writeLine(String line) throws IOException {
    if (bufferLine(line)) {
      send();
    }
  }

  @Override
  public void flush() throws IOException {
    checkOpen();
    send();
  }

  @Override
  public void startTls(TlsSettings settings) throws IOException {
    Objects.requireNonNull(settings, "settings");
    checkOpen();
    send();
    String what = handshakeWhat(settings);
    // This transport blocks for the handshake: refuse on an I/O thread before touching the session.
    IoThreads.checkNotIoThread(what);
    long wait = handshakeWaitNanos(settings, what);
    IoFuture handshake = beginStartTls(settings, what);
    awaitHandshake(handshake, wait, what);
  }

  /** Waits for the handshake of implicit TLS, begun by the connect. */
  void awaitImplicitHandshake(TlsSettings settings) throws IOException {
    String what = handshakeWhat(settings);
    awaitHandshake(state.handshake(), handshakeWaitNanos(settings, what), what);
  }

  private void awaitHandshake(IoFuture handshake, long wait, String what) throws IOException {
    boolean ended;
    try {
      ended = state.awaitDone(handshake, wait, what);
    } catch (IOException e) {
      throw fail(e);
    }
    if (!ended) {
      throw handshakeTimedOut(wait, what);
    }
    endHandshake(what);
  }

  private void send() throws IOException {
    if (!hasOutbound()) {
      return;
    }
    try {
      IoThreads.checkNotIoThread("a flush");
      long wait = waitNanos("flush");
      WriteFuture written = startSend();
      if (written == null) {
        return;
      }
      if (!state.awaitDone(written, wait, "flush")) {
        throw timedOut(wait, "flush");
      }
      checkWritten(written);
    } catch (IOException e) {
      throw fail(e);
    }
  }
}
