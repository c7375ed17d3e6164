package io.weft.simulation;

import io.weft.continuations.runtime.spi.ReleasingRegistration;
import io.weft.continuations.runtime.spi.SelfCheckingTransport;
import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingReads;
import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.Timeout;
import io.weft.transport.TlsHandshakeException;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.spi.Deadlines;
import io.weft.transport.spi.FailurePolicy;
import io.weft.transport.spi.OutboundBuffer;
import io.weft.transport.spi.ReadArguments;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.apache.commons.javaflow.api.continuable;

/**
 * A {@link Transport} over one side of a simulated connection, with the contract and the error
 * vocabulary of the TCP transports: reads through the shared {@link SuspendingReads} loops over an
 * {@code InboundBuffer}, timeouts and session deadlines on the virtual clock with the same
 * messages, the same {@link FailurePolicy}. A wait suspends the session's continuation; the
 * segment, FIN, reset, close or timer that ends it makes the session ready again.
 *
 * <p>Writes are buffered until a flush (or 64 KiB); a flush puts the bytes on the link and returns
 * once at most {@link Endpoint#WINDOW} of what this side sent is unread by the peer, or the peer
 * waits to read: so a flush to a peer that never reads times out, as over TCP.
 *
 * <p>Every read, write, flush and {@code startTls} makes the runtime's entry check first
 * ({@link SelfCheckingTransport}), so the task gets this transport without the checked wrapper:
 * one frame less on each of a simulation's millions of suspends and resumes.
 */
final class SimTransport implements SelfCheckingTransport, LineParsing, SuspendingReads.Waiter, ReleasingRegistration,
    OpenSet.Member {
  // This session's own objects first, the shared ones and the way into the peer's session after
  // (the order in which the collector's depth-first copy lays them out: see OpenSet).
  private final SuspendingReads reads;
  private final OutboundBuffer outbound = new OutboundBuffer(16);
  final Endpoint end;
  private final World world;
  private final Net net;
  private final SocketAddress remote;
  private final long sessionStartNanos;
  /** The connector that opened this transport, told when it closes; null on a server's side. */
  private final SimConnector opener;
  /** The place in the opener's set of open transports; -1 when in none. */
  private int openAt = -1;
  private volatile Timeout timeout;
  private String closedBecause;

  SimTransport(World world, Net net, Endpoint end, SocketAddress remote, Timeout timeout, long sessionStartNanos,
      SimConnector opener) {
    this.world = world;
    this.net = net;
    this.end = end;
    this.remote = remote;
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.sessionStartNanos = sessionStartNanos;
    this.opener = opener;
    this.reads = new SuspendingReads(end.inbound, this, world.immediateReads);
  }

  @Override
  public int openAt() {
    return openAt;
  }

  @Override
  public void openAt(int at) {
    openAt = at;
  }

  // ---- Reads.

  @Override
  @continuable
  public String readLine(int limit) throws IOException {
    SelfCheckingTransport.checkEntry();
    end.wanted = limit + 2L;
    String line = reads.readLine(limit, false, StandardCharsets.UTF_8);
    end.readProgress();
    return line;
  }

  @Override
  @continuable
  public String readLine(int limit, Charset charset) throws IOException {
    SelfCheckingTransport.checkEntry();
    end.wanted = limit + 2L;
    String line = reads.readLine(limit, false, charset);
    end.readProgress();
    return line;
  }

  @Override
  @continuable
  public String readLineStrict(int limit) throws IOException {
    SelfCheckingTransport.checkEntry();
    end.wanted = limit + 2L;
    String line = reads.readLine(limit, true, StandardCharsets.UTF_8);
    end.readProgress();
    return line;
  }

  @Override
  @continuable
  public String readLineStrict(int limit, Charset charset) throws IOException {
    SelfCheckingTransport.checkEntry();
    end.wanted = limit + 2L;
    String line = reads.readLine(limit, true, charset);
    end.readProgress();
    return line;
  }

  @Override
  @continuable
  public <T> T parseLine(int limit, LineParser<T> parser) throws IOException {
    SelfCheckingTransport.checkEntry();
    end.wanted = limit + 2L;
    T value = reads.parseLine(limit, parser);
    end.readProgress();
    return value;
  }

  @Override
  @continuable
  public void readFully(byte[] dst, int offset, int length) throws IOException {
    SelfCheckingTransport.checkEntry();
    end.wanted = length;
    reads.readFully(dst, offset, length);
    end.readProgress();
  }

  @Override
  @continuable
  public byte[] readBytes(int byteCount) throws IOException {
    SelfCheckingTransport.checkEntry();
    end.wanted = byteCount;
    byte[] bytes = reads.readFully(ReadArguments.newBytes(byteCount), 0, byteCount);
    end.readProgress();
    return bytes;
  }

  @Override
  @continuable
  public int read(byte[] dst, int offset, int length) throws IOException {
    SelfCheckingTransport.checkEntry();
    end.wanted = length;
    int n = reads.read(dst, offset, length);
    end.readProgress();
    return n;
  }

  // How a read waits: the transport is its own SuspendingReads.Waiter (one object less per
  // connection), registered as the side's reader, woken by a segment, FIN, reset or close. It
  // holds one wake-up, which a wake clears and which abandonWait clears when the wait times out or
  // fails: a ReleasingRegistration, so the session's read waits share one wake-up object. The
  // read loop calls Suspend.await itself between these steps: no frame of the wait's own.

  @Override
  public long beginWait(long awaited) throws IOException {
    checkReset();
    long wait;
    try {
      wait = Deadlines.waitNanos(world, timeout, sessionStartNanos, "read");
    } catch (TransportTimeoutException e) {
      throw readTimedOut(0L, awaited);
    }
    end.readerWaiting = true;
    end.readProgress();
    return wait;
  }

  @Override
  public long nextSlice(long slice, long awaited) throws IOException {
    // One suspend per wait: the virtual clock needs no re-asserted interest.
    throw readTimedOut(slice, awaited);
  }

  @Override
  public void endWait() throws IOException {
    end.readerWaiting = false;
    checkOpen();
    if (end.inbound.size() == 0 && !end.inbound.isEof()) {
      checkReset();
    }
  }

  @Override
  public void abandonWait() {
    end.readerWaiting = false;
    end.readerWake = null;
  }

  @Override
  public void register(Runnable wake) {
    end.readerWake = wake;
  }

  @Override
  public IOException failed(IOException e) {
    return fail(e);
  }

  private TransportTimeoutException readTimedOut(long waited, long awaited) {
    return Deadlines.readTimedOut(world, timeout, sessionStartNanos, waited, awaited,
        end.inbound.describeUnread());
  }

  private void checkReset() throws SocketException {
    if (end.reset) {
      throw new SocketException("Connection reset");
    }
  }

  // ---- Writes.

  @Override
  @continuable
  public void write(byte[] src, int offset, int length) throws IOException {
    SelfCheckingTransport.checkEntry();
    checkOpen();
    outbound.append(src, offset, length);
    if (outbound.shouldSend()) {
      send();
    }
  }

  @Override
  @continuable
  public void write(byte[] src) throws IOException {
    SelfCheckingTransport.checkEntry();
    write(src, 0, src.length);
  }

  @Override
  @continuable
  public void write(String text) throws IOException {
    SelfCheckingTransport.checkEntry();
    write(text, StandardCharsets.UTF_8);
  }

  @Override
  @continuable
  public void write(String text, Charset charset) throws IOException {
    SelfCheckingTransport.checkEntry();
    checkOpen();
    outbound.append(text, charset);
    if (outbound.shouldSend()) {
      send();
    }
  }

  @Override
  @continuable
  public void writeLine(String line) throws IOException {
    SelfCheckingTransport.checkEntry();
    checkOpen();
    outbound.appendLine(line);
    if (outbound.shouldSend()) {
      send();
    }
  }

  @Override
  @continuable
  public void flush() throws IOException {
    SelfCheckingTransport.checkEntry();
    checkOpen();
    send();
  }

  @continuable
  private void send() throws IOException {
    if (outbound.size() == 0) {
      return;
    }
    try {
      checkReset();
      long wait = Deadlines.waitNanos(world, timeout, sessionStartNanos, "flush");
      if (end.outputShut) {
        outbound.clear();
        throw new SocketException("Socket output is shutdown");
      }
      net.send(end, outbound.array(), outbound.size());
      outbound.clear();
      long start = world.nanoTime();
      while (!end.windowOpen()) {
        long left = wait == Long.MAX_VALUE ? wait : wait - (world.nanoTime() - start);
        if (left <= 0L || !Suspend.await(end, left)) {
          end.flusherWake = null;
          throw Deadlines.timedOut(world, timeout, sessionStartNanos, wait, "flush");
        }
        checkOpen();
        checkReset();
      }
    } catch (SessionCancelledException e) {
      throw e; // the run's cancel, no failure of the transport: see SessionCancelledException
    } catch (IOException e) {
      throw fail(e);
    }
  }

  // ---- The rest of the contract.

  @Override
  public void startTls(TlsSettings settings) throws IOException {
    SelfCheckingTransport.checkEntry();
    Objects.requireNonNull(settings, "settings");
    checkOpen();
    throw fail(new TlsHandshakeException("TLS handshake with " + remote + " failed: TLS is not simulated", null));
  }

  @Override
  public Optional<SSLSession> tlsSession() {
    return Optional.empty();
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
    return closedBecause == null;
  }

  @Override
  public void close() {
    close("closed by its owner");
  }

  void close(String because) {
    if (closedBecause != null) {
      return;
    }
    closedBecause = because;
    net.close(end);
    if (opener != null) {
      opener.closed(this);
    }
  }

  @Override
  public void checkOpen() throws TransportClosedException {
    String because = closedBecause;
    if (because != null) {
      throw new TransportClosedException("transport is closed: " + because);
    }
  }

  private IOException fail(IOException e) {
    String because = FailurePolicy.closeReason(e);
    if (because != null) {
      close(because);
    }
    return e;
  }

  @Override
  public String toString() {
    return "SimTransport{" + remote + ", conn " + end.conn + (isOpen() ? "" : ", closed") + "}";
  }
}
