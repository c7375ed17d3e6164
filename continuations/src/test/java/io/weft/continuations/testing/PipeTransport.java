package io.weft.continuations.testing;

import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingReads;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.spi.Deadlines;
import io.weft.transport.spi.Inbound;
import io.weft.transport.spi.InboundBuffer;
import io.weft.transport.spi.OutboundBuffer;
import io.weft.transport.spi.ReadArguments;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLSession;
import org.apache.commons.javaflow.api.continuable;
import org.apache.commons.javaflow.core.StackRecorder;

/**
 * A suspending in-JVM transport to a {@link PipeEchoServer}: a read that finds nothing buffered
 * waits through {@link Suspend#await}, and the server thread's delivery wakes it. Suspends in a
 * continuation, blocks on a plain thread. Exactly the shape a real suspending transport has: the
 * waiting methods carry {@code @continuable}; the rest are ordinary.
 */
public final class PipeTransport implements Transport {
  private final Object lock = new Object();
  private final InboundBuffer inbound = new InboundBuffer(256);
  private final OutboundBuffer outbound = new OutboundBuffer(256);
  private final SuspendingReads reads =
      new SuspendingReads(new LockedInbound(), new PipeWaiter(), new LongAdder());
  private final PipeEchoServer server;
  private final long sessionStart;
  private final PipeConnector owner;
  final StringBuilder serverPartial = new StringBuilder();
  private volatile Timeout timeout;
  private volatile String closedBecause;
  private boolean accepted;
  private Runnable waiter;
  /** Answers the server holds until a read waits ({@link PipeEchoServer#answeringWaitingReaders()}). */
  private final ArrayDeque<byte[]> held = new ArrayDeque<>();

  PipeTransport(PipeEchoServer server, Timeout timeout, long sessionStart, PipeConnector owner) {
    this.server = server;
    this.timeout = timeout;
    this.sessionStart = sessionStart;
    this.owner = owner;
  }

  void registerConnect(Runnable wake) {
    server.accept(this, () -> {
      synchronized (lock) {
        accepted = true;
      }
      wake.run();
    });
  }

  /**
   * Register-then-recheck: wakes inline when there is something to read already. A held answer is
   * let go once the wake-up is registered, from the server thread.
   */
  private void registerReader(Runnable wake) {
    synchronized (lock) {
      if (inbound.size() == 0 && !inbound.isEof() && closedBecause == null) {
        waiter = wake;
        if (StackRecorder.get() != null) {
          owner.suspended();
        }
        if (!held.isEmpty()) {
          server.later(this::releaseOne);
        }
        return;
      }
    }
    wake.run();
  }

  /** The server's answer (on its thread), delivered now if a read waits for it, else once one does. */
  void deliverOnceReaderWaits(byte[] bytes) {
    synchronized (lock) {
      held.add(bytes);
    }
    releaseOne();
  }

  /**
   * On the server thread only (so one at a time, in order): the first held answer, if a read
   * waits; one answer per wait.
   */
  private void releaseOne() {
    byte[] bytes;
    synchronized (lock) {
      if (waiter == null || held.isEmpty()) {
        return;
      }
      bytes = held.poll();
    }
    deliver(bytes);
  }

  void deliver(byte[] bytes) {
    Runnable w;
    synchronized (lock) {
      inbound.append(bytes, 0, bytes.length);
      w = waiter;
      waiter = null;
    }
    if (w != null) {
      w.run();
    }
  }

  void peerClosed() {
    Runnable w;
    synchronized (lock) {
      inbound.markEof();
      w = waiter;
      waiter = null;
    }
    if (w != null) {
      w.run();
    }
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

  /** The inbound buffer under this transport's lock: the server thread fills it. */
  private final class LockedInbound implements Inbound {
    @Override
    public String pollLine(int limit, boolean strict, Charset charset) throws IOException {
      synchronized (lock) {
        return inbound.pollLine(limit, strict, charset);
      }
    }

    @Override
    public boolean pollFully(byte[] dst, int offset, int length) throws IOException {
      synchronized (lock) {
        return inbound.pollFully(dst, offset, length);
      }
    }

    @Override
    public int poll(byte[] dst, int offset, int length) throws IOException {
      synchronized (lock) {
        return inbound.poll(dst, offset, length);
      }
    }

    @Override
    public boolean isDrained() {
      synchronized (lock) {
        return inbound.isDrained();
      }
    }
  }

  /** Waits through {@link Suspend#await} (which the read loop calls), woken by the server thread's delivery or a close. */
  private final class PipeWaiter implements SuspendingReads.Waiter {
    @Override
    public void checkOpen() throws TransportClosedException {
      PipeTransport.this.checkOpen();
    }

    @Override
    public long beginWait(long awaited) throws IOException {
      return Deadlines.waitNanos(timeout, sessionStart, "read");
    }

    @Override
    public void register(Runnable wake) {
      registerReader(wake);
    }

    @Override
    public long nextSlice(long slice, long awaited) throws IOException {
      TransportTimeoutException e = Deadlines.timedOut(timeout, sessionStart, slice, "read");
      close("an operation timed out: " + e.getMessage());
      throw e;
    }

    @Override
    public void endWait() throws IOException {
      // A close wakes the wait too; what was buffered before it is not read after it.
      PipeTransport.this.checkOpen();
    }

    @Override
    public void abandonWait() {
      // Nothing to forget: a later wait's registration replaces the wake-up.
    }

    @Override
    public IOException failed(IOException e) {
      return e;
    }
  }

  @Override
  public void write(byte[] src, int offset, int length) throws IOException {
    checkOpen();
    synchronized (lock) {
      outbound.append(src, offset, length);
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
    synchronized (lock) {
      outbound.append(text, charset);
    }
  }

  @Override
  public void writeLine(String line) throws IOException {
    checkOpen();
    synchronized (lock) {
      outbound.appendLine(line);
    }
  }

  @Override
  public void flush() throws IOException {
    checkOpen();
    byte[] bytes;
    synchronized (lock) {
      if (outbound.size() == 0) {
        return;
      }
      bytes = outbound.take();
    }
    server.received(this, bytes);
  }

  @Override
  public void startTls(TlsSettings settings) {
    throw new IllegalStateException("the in-memory pipe has no peer that speaks TLS");
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

  private void close(String because) {
    Runnable w;
    synchronized (lock) {
      if (closedBecause != null) {
        return;
      }
      closedBecause = because;
      w = waiter;
      waiter = null;
    }
    owner.forget(this);
    if (w != null) {
      w.run();
    }
  }

  private void checkOpen() throws TransportClosedException {
    String because = closedBecause;
    if (because != null) {
      throw new TransportClosedException("transport is closed: " + because);
    }
  }
}
