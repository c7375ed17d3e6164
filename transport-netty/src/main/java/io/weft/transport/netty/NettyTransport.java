package io.weft.transport.netty;

import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.internal.BlockingReads;
import io.weft.transport.internal.ReadArguments;
import io.weft.transport.netty.internal.ChannelState;
import io.weft.transport.netty.internal.EventLoops;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import io.netty.channel.ChannelFuture;
import io.netty.util.concurrent.Future;

/**
 * A {@link Transport} over one Netty channel (TCP, NIO) that blocks the calling thread: each
 * operation hands its work to the channel's event loop and waits for the outcome under the
 * {@link Timeout}. This is what {@code SYNC} and {@code THREADS} modes run on Netty; its sibling
 * {@link ContinuingNettyTransport} suspends a continuation instead.
 *
 * <p>Inbound bytes are copied by Weft's own handler into a bounded per-channel buffer (see
 * {@link ChannelState}); a read waits only when that buffer cannot satisfy it. A flush writes one
 * pooled direct buffer and waits for its write future: when it returns the bytes are in the
 * operating system's socket buffer, and a failure to send them is thrown by the flush itself.
 *
 * <p>Every wait refuses at once, with {@link io.weft.transport.BlockingOperationException}, to
 * run on an event-loop thread, where it could never end. Open one with
 * {@link NettyConnector#connect}; closing the connector closes it.
 */
public final class NettyTransport extends AbstractNettyTransport {
  private final BlockingReads reads;

  NettyTransport(ChannelState state, Timeout timeout, long sessionStartNanos, NettyConnector owner,
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

  /** How this transport's reads wait: blocked on the channel state's condition. */
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
    // This transport blocks for the handshake: refuse on an event loop before touching the channel.
    EventLoops.checkMayBlock(what);
    long wait = handshakeWaitNanos(settings, what);
    Future<?> handshake = beginStartTls(settings, what);
    awaitHandshake(handshake, wait, what);
  }

  /** Waits for the handshake of implicit TLS, begun by the connect. */
  void awaitImplicitHandshake(TlsSettings settings) throws IOException {
    String what = handshakeWhat(settings);
    awaitHandshake(state.handshake(), handshakeWaitNanos(settings, what), what);
  }

  private void awaitHandshake(Future<?> handshake, long wait, String what) throws IOException {
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
      EventLoops.checkMayBlock("a flush");
      long wait = waitNanos("flush");
      ChannelFuture written = startSend();
      if (!state.awaitDone(written, wait, "flush")) {
        throw timedOut(wait, "flush");
      }
      checkWritten(written);
    } catch (IOException e) {
      throw fail(e);
    }
  }
}
