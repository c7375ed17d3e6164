package io.weft.transport.mina;

import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.internal.Deadlines;
import io.weft.transport.internal.InboundBuffer;
import io.weft.transport.internal.OutboundBuffer;
import io.weft.transport.mina.internal.IoThreads;
import io.weft.transport.mina.internal.SessionState;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.future.WriteFuture;
import org.apache.mina.core.session.IoSession;

/**
 * A {@link Transport} over one MINA session, TCP or in-VM pipe, that blocks the calling thread:
 * each operation issues the MINA call and waits for its outcome under the {@link Timeout}.
 * This is what {@code SYNC} and {@code THREADS} modes run on MINA.
 *
 * <p>Inbound bytes are buffered by Weft's own handler in a bounded per-session buffer (see
 * {@link SessionState}); a read waits only when that buffer cannot satisfy it. A flush writes
 * one {@code IoBuffer} and waits for its {@code WriteFuture}.
 *
 * <p>Every wait refuses at once, with {@link IllegalStateException}, to run on a MINA I/O
 * thread, where it could never end. Open one with {@link MinaConnector#connect}; closing the
 * connector closes it.
 */
public final class MinaTransport implements Transport {
  private static final int WRITE_THRESHOLD = 64 * 1024;

  private final SessionState state;
  private final long sessionStartNanos;
  private final MinaConnector owner;
  private final SocketAddress remote;
  private final OutboundBuffer outbound = new OutboundBuffer(256);
  private volatile Timeout timeout;

  MinaTransport(SessionState state, Timeout timeout, long sessionStartNanos, MinaConnector owner,
      SocketAddress remote) {
    this.state = state;
    this.timeout = timeout;
    this.sessionStartNanos = sessionStartNanos;
    this.owner = owner;
    this.remote = remote;
  }

  @Override
  public String readLine(int limit) throws IOException {
    return readLine(limit, false, StandardCharsets.UTF_8);
  }

  @Override
  public String readLine(int limit, Charset charset) throws IOException {
    return readLine(limit, false, charset);
  }

  @Override
  public String readLineStrict(int limit) throws IOException {
    return readLine(limit, true, StandardCharsets.UTF_8);
  }

  @Override
  public String readLineStrict(int limit, Charset charset) throws IOException {
    return readLine(limit, true, charset);
  }

  private String readLine(int limit, boolean strict, Charset charset) throws IOException {
    Objects.requireNonNull(charset, "charset");
    if (limit < 0) {
      throw new IllegalArgumentException("limit < 0: " + limit);
    }
    try {
      for (;;) {
        String line = state.pollLine(limit, strict, charset);
        if (line != InboundBuffer.NEED_MORE) {
          return line;
        }
        awaitInput();
      }
    } catch (IOException e) {
      throw fail(e);
    }
  }

  @Override
  public void readFully(byte[] dst, int offset, int length) throws IOException {
    Objects.checkFromIndexSize(offset, length, dst.length);
    try {
      while (!state.pollFully(dst, offset, length)) {
        awaitInput();
      }
    } catch (IOException e) {
      throw fail(e);
    }
  }

  @Override
  public byte[] readBytes(int byteCount) throws IOException {
    if (byteCount < 0) {
      throw new IllegalArgumentException("byteCount < 0: " + byteCount);
    }
    byte[] result = new byte[byteCount];
    readFully(result, 0, byteCount);
    return result;
  }

  @Override
  public int read(byte[] dst, int offset, int length) throws IOException {
    Objects.checkFromIndexSize(offset, length, dst.length);
    try {
      for (;;) {
        int n = state.poll(dst, offset, length);
        if (n != -2) {
          return n;
        }
        awaitInput();
      }
    } catch (IOException e) {
      throw fail(e);
    }
  }

  private void awaitInput() throws IOException {
    long wait = Deadlines.waitNanos(timeout, sessionStartNanos, "read");
    if (!state.awaitInput(wait)) {
      throw Deadlines.timedOut(timeout, sessionStartNanos, wait, "read");
    }
  }

  @Override
  public void write(byte[] src, int offset, int length) throws IOException {
    checkOpen();
    outbound.append(src, offset, length);
    if (outbound.size() >= WRITE_THRESHOLD) {
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
    checkOpen();
    outbound.append(text, charset);
    if (outbound.size() >= WRITE_THRESHOLD) {
      send();
    }
  }

  @Override
  public void writeLine(String line) throws IOException {
    checkOpen();
    outbound.append(line, StandardCharsets.UTF_8);
    outbound.appendCrlf();
    if (outbound.size() >= WRITE_THRESHOLD) {
      send();
    }
  }

  @Override
  public void flush() throws IOException {
    checkOpen();
    send();
  }

  private void send() throws IOException {
    if (outbound.size() == 0) {
      return;
    }
    // Refuse before writing: a write issued and then refused would leave the session half-used.
    IoThreads.checkNotIoThread("a flush");
    try {
      long wait = Deadlines.waitNanos(timeout, sessionStartNanos, "flush");
      IoSession session = state.session();
      WriteFuture written = session.write(IoBuffer.wrap(outbound.take()));
      if (!state.awaitDone(written, wait, "flush")) {
        throw Deadlines.timedOut(timeout, sessionStartNanos, wait, "flush");
      }
      if (!written.isWritten()) {
        checkOpen();
        Throwable cause = written.getException();
        throw new IOException("write failed: " + cause, cause);
      }
    } catch (IOException e) {
      throw fail(e);
    }
  }

  @Override
  public Timeout timeout() {
    return timeout;
  }

  @Override
  public void timeout(Timeout timeout) {
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  @Override
  public boolean isOpen() {
    return !state.isClosed();
  }

  @Override
  public void close() {
    close("closed by its owner");
  }

  void close(String because) {
    if (state.close(because)) {
      owner.forget(state);
    }
  }

  private void checkOpen() throws TransportClosedException {
    String because = state.closedBecause();
    if (because != null) {
      throw new TransportClosedException("transport is closed: " + because);
    }
  }

  /** Closes this transport after a failed operation and returns the exception to throw. */
  private IOException fail(IOException e) {
    if (e instanceof TransportTimeoutException) {
      close("an operation timed out: " + e.getMessage());
    } else if (!(e instanceof TransportClosedException) && !(e instanceof EOFException)
        && !(e instanceof ProtocolViolationException)) {
      close("failed: " + e);
    }
    return e;
  }

  /** The per-session state; for tests in this module. */
  SessionState state() {
    return state;
  }

  @Override
  public String toString() {
    return "MinaTransport{" + remote + (isOpen() ? "" : ", closed") + "}";
  }
}
