package io.weft.transport.spi;

import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A {@link Transport} over an I/O library's {@link ConnectionState} that blocks the calling
 * thread: each operation issues the library call and waits for its outcome under the
 * {@link Timeout}, through the connector's {@link BlockingWaits}. What {@code SYNC} and {@code THREADS} modes run on
 * MINA and Netty; the library's public class ({@code MinaTransport}, {@code NettyTransport})
 * extends this and adds only its constructor. Plain Java, never rewritten for continuations: a
 * blocking transport pays nothing for them. Every wait refuses at once to run on the library's
 * I/O thread ({@link ConnectionState#checkMayBlock}). For transport implementations, not
 * protocol code.
 *
 * @param <F> the library's future type
 */
public abstract class BlockingConnectionTransport<F> extends ConnectionTransport<F> implements LineParsing {
  private final BlockingWaits waits;
  private final BlockingReads reads;

  /**
   * A transport over a connected state, whose reads block the calling thread.
   *
   * @param state the connection's state
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started, on {@code waits}' clock, for its deadline
   * @param forget tells the connector that this transport closed
   * @param remote the peer's address
   * @param waits the connector's waits, whose clock the session deadline reads too
   * @param <S> the library's state type
   */
  protected <S extends ConnectionState<F, ?>> BlockingConnectionTransport(S state, Timeout timeout, long sessionStartNanos,
      Consumer<? super S> forget, SocketAddress remote, BlockingWaits waits) {
    super(state, timeout, sessionStartNanos, forget, remote, waits.ticker());
    this.waits = waits;
    reads = new BlockingReads(state, new BlockingWaiter());
  }

  @Override
  public final String readLine(int limit) throws IOException {
    return reads.readLine(limit, false, StandardCharsets.UTF_8);
  }

  @Override
  public final String readLine(int limit, Charset charset) throws IOException {
    return reads.readLine(limit, false, charset);
  }

  @Override
  public final String readLineStrict(int limit) throws IOException {
    return reads.readLine(limit, true, StandardCharsets.UTF_8);
  }

  @Override
  public final String readLineStrict(int limit, Charset charset) throws IOException {
    return reads.readLine(limit, true, charset);
  }

  @Override
  public final <T> T parseLine(int limit, LineParser<T> parser) throws IOException {
    return reads.parseLine(limit, parser);
  }

  @Override
  public final void readFully(byte[] dst, int offset, int length) throws IOException {
    reads.readFully(dst, offset, length);
  }

  @Override
  public final byte[] readBytes(int byteCount) throws IOException {
    return reads.readFully(ReadArguments.newBytes(byteCount), 0, byteCount);
  }

  @Override
  public final int read(byte[] dst, int offset, int length) throws IOException {
    return reads.read(dst, offset, length);
  }

  /** How this transport's reads wait: blocked, through the connector's waits. */
  private final class BlockingWaiter extends ReadWaiter implements BlockingReads.Waiter {
    @Override
    public void awaitInput(long awaited) throws IOException {
      long wait = readWaitNanos(awaited);
      if (!waits.awaitInput(state, wait)) {
        throw readTimedOut(wait, awaited);
      }
    }
  }

  @Override
  public final void write(byte[] src, int offset, int length) throws IOException {
    if (buffer(src, offset, length)) {
      send();
    }
  }

  @Override
  public final void write(byte[] src) throws IOException {
    write(src, 0, src.length);
  }

  @Override
  public final void write(String text) throws IOException {
    write(text, StandardCharsets.UTF_8);
  }

  @Override
  public final void write(String text, Charset charset) throws IOException {
    if (buffer(text, charset)) {
      send();
    }
  }

  @Override
  public final void writeLine(String line) throws IOException {
    if (bufferLine(line)) {
      send();
    }
  }

  @Override
  public final void flush() throws IOException {
    checkOpen();
    send();
  }

  @Override
  public final void startTls(TlsSettings settings) throws IOException {
    Objects.requireNonNull(settings, "settings");
    checkOpen();
    send();
    String what = handshakeWhat(settings);
    // This transport blocks for the handshake: refuse on an I/O thread before touching the connection.
    state.checkMayBlock(what);
    long wait = handshakeWaitNanos(settings, what);
    F handshake = beginStartTls(settings, what);
    awaitHandshake(handshake, wait, what);
  }

  /**
   * Waits for the handshake of implicit TLS, begun by the connect.
   *
   * @param settings the connector's TLS settings
   * @throws IOException why the handshake failed; this transport is then closed
   */
  protected final void awaitImplicitHandshake(TlsSettings settings) throws IOException {
    String what = handshakeWhat(settings);
    awaitHandshake(state.handshake(), handshakeWaitNanos(settings, what), what);
  }

  private void awaitHandshake(F handshake, long wait, String what) throws IOException {
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

  private void send() throws IOException {
    if (!hasOutbound()) {
      return;
    }
    try {
      state.checkMayBlock("a flush");
      long wait = waitNanos("flush");
      F written = startSend();
      if (written == null) {
        return;
      }
      if (!waits.awaitDone(state, written, wait, "flush")) {
        throw timedOut(wait, "flush");
      }
      state.checkWritten(written);
    } catch (IOException e) {
      throw fail(e);
    }
  }
}
