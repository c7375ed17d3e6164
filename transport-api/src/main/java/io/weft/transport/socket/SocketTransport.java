package io.weft.transport.socket;

import io.weft.transport.LineParser;
import io.weft.transport.LineParsing;
import io.weft.transport.NonBlockingThread;
import io.weft.transport.StartTlsInjectionException;
import io.weft.transport.Timeout;
import io.weft.transport.TlsHandshakeException;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;

import io.weft.transport.spi.BlockingReads;
import io.weft.transport.spi.CloseNotice;
import io.weft.transport.spi.ConnectFailures;
import io.weft.transport.spi.ConnectorCore;
import io.weft.transport.spi.Deadlines;
import io.weft.transport.spi.FailurePolicy;
import io.weft.transport.spi.InboundBuffer;
import io.weft.transport.spi.OutboundBuffer;
import io.weft.transport.spi.ReadArguments;
import io.weft.transport.spi.ArrivalNotice;
import io.weft.transport.spi.ReplyStamps;
import io.weft.transport.spi.ReplyTiming;
import io.weft.transport.spi.ReportsArrival;
import io.weft.transport.spi.ReportsClose;
import io.weft.transport.spi.Ticker;
import io.weft.transport.spi.Tls;
import io.weft.transport.spi.VirtualThreads;
import io.weft.transport.spi.WriteWatchdog;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;

/**
 * The reference {@link Transport}: a plain blocking {@link Socket} with Weft's own buffering.
 * It is what {@code THREADS} and {@code VIRTUAL_THREADS} modes use (a virtual thread blocked in
 * a socket read parks rather than pinning its carrier).
 *
 * <p>Reads honour {@link Timeout} through {@link Socket#setSoTimeout(int)}. A blocking socket's
 * writes cannot be timed out by the JDK, so a flush with a timeout arms the shared write
 * watchdog (a daemon thread, {@code weft-write-watchdog}), which closes the socket if the bytes
 * are not handed to the operating system in time: the flush then fails with
 * {@link TransportTimeoutException}, as on every transport.
 *
 * <p>TLS runs over an {@link SSLSocket} layered on the connected socket
 * ({@code SSLSocketFactory.createSocket(socket, host, port, true)}): from the connect when the
 * connector has {@link TlsSettings}, or from {@link #startTls(TlsSettings)}. The handshake is
 * bounded like a read, through the socket's timeout.
 *
 * <p>Asked to ({@link ReplyTiming}), it stamps each send just before its write and the first
 * bytes after it when the reader's socket read returns them.
 *
 * <p>Open one with {@link #connect(SocketAddress, Timeout)} or a {@link SocketConnector}.
 */
public final class SocketTransport implements Transport, LineParsing, ReplyTiming, ReportsClose, ReportsArrival {
  private static final int READ_CHUNK = 8 * 1024;
  /**
   * The longest one socket read blocks before it looks whether its transport was closed. A close
   * normally ends a blocked read at once (the JDK signals the reader), but a close that fails half
   * way does not: when the heap runs out inside the JDK's socket close, after it has marked the
   * socket closing and before it signals the reader, the read stays blocked and every later close
   * returns at once. So a read on a platform thread waits in slices of this length; a read's
   * timeout is unchanged (the slices add up to it), and a read with data to come pays nothing. A
   * read on a VIRTUAL_THREADS session thread does not (see {@code awaitInput}).
   */
  static final long READ_SLICE_NANOS = TimeUnit.SECONDS.toNanos(5);

  static {
    // Initialised and linked as this class loads: the first look comes in a read's wait, which
    // may come with the heap full, and a class whose initialiser failed once is unusable for good.
    VirtualThreads.onSessionThread();
  }

  /** The plain socket, or the TLS socket layered over it once upgraded (closing it closes both). */
  private volatile Socket socket;
  /** The TCP socket under any TLS layer: what a timed-out write's watchdog closes. */
  private final Socket tcp;
  private final WriteTimer writeTimer = new WriteTimer();
  /** True during a TLS write or handshake, so that a close from another thread does not wait for it. */
  private volatile boolean tlsSending;
  private InputStream in;
  private OutputStream out;
  private final SocketAddress remote;
  private volatile SSLSession tlsSession;
  private final long sessionStartNanos;
  private final InboundBuffer inbound = new InboundBuffer(READ_CHUNK);
  private final OutboundBuffer outbound = new OutboundBuffer(1024);
  private final ReplyStamps replies = new ReplyStamps();
  private final ArrivalNotice heard = new ArrivalNotice();
  private final BlockingReads reads = new BlockingReads(inbound, new SocketWaiter());
  private final SocketConnector owner;
  private volatile Timeout timeout;
  private volatile String closedBecause;
  /** True once the socket itself is closed; {@link #closedBecause} is set first. */
  private volatile boolean socketClosed;
  private final CloseNotice closeNotice = new CloseNotice();
  /** {@link #READ_SLICE_NANOS}, shorter in tests. */
  long readSliceNanos = READ_SLICE_NANOS;
  /** Read slices that ended with nothing read (for tests: a read in its third slice has seen two). */
  volatile int emptyReadSlices;

  SocketTransport(Socket socket, Timeout timeout, long sessionStartNanos, SocketConnector owner)
      throws IOException {
    this(socket, timeout, sessionStartNanos, owner, socket.getRemoteSocketAddress());
  }

  private SocketTransport(Socket socket, Timeout timeout, long sessionStartNanos, SocketConnector owner,
      SocketAddress remote) throws IOException {
    this.socket = socket;
    this.tcp = socket;
    this.in = socket.getInputStream();
    this.out = socket.getOutputStream();
    this.remote = remote;
    this.timeout = timeout;
    this.sessionStartNanos = sessionStartNanos;
    this.owner = owner;
    if (!(socket instanceof SSLSocket)) {
      inbound.expectPlaintextFrom(remote);
    }
  }

  /**
   * Connects a new socket to {@code remote} (TCP_NODELAY on) within the operation timeout and
   * session deadline of {@code timeout}.
   *
   * @param remote the address to connect to
   * @param timeout the transport's timeouts; its session deadline starts now
   * @return the connected transport
   * @throws IOException if the connect fails or times out; the message names {@code remote}
   */
  public static SocketTransport connect(SocketAddress remote, Timeout timeout) throws IOException {
    return open(remote, timeout, null, null);
  }

  /**
   * Connects as {@link #connect(SocketAddress, Timeout)}, then does a TLS handshake as
   * {@code tls} says before returning (implicit TLS).
   *
   * @param remote the server's address
   * @param timeout the transport's timeouts; the handshake counts as one wait
   * @param tls the TLS settings of the handshake
   * @return the open transport, speaking TLS
   * @throws IOException if the connect fails
   * @throws TlsHandshakeException if the handshake fails
   */
  public static SocketTransport connect(SocketAddress remote, Timeout timeout, TlsSettings tls) throws IOException {
    return open(remote, timeout, null, Objects.requireNonNull(tls, "tls"));
  }

  static SocketTransport open(SocketAddress remote, Timeout timeout, SocketConnector owner, TlsSettings tls)
      throws IOException {
    Objects.requireNonNull(remote, "remote");
    Objects.requireNonNull(timeout, "timeout");
    NonBlockingThread.checkMayBlock("a connect");
    long start = System.nanoTime();
    long wait = Deadlines.waitNanos(timeout, start, ConnectorCore.connectWhat(remote));
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.connect(remote, Deadlines.toSoTimeoutMillis(wait));
    } catch (SocketTimeoutException e) {
      closeQuietly(socket);
      TransportTimeoutException t = Deadlines.timedOut(timeout, start, wait, ConnectorCore.connectWhat(remote));
      t.initCause(e);
      throw t;
    } catch (ConnectException e) {
      closeQuietly(socket);
      throw ConnectFailures.naming(remote, e);
    } catch (UnknownHostException e) {
      // Socket.connect refuses an unresolved address so, naming only its host.
      closeQuietly(socket);
      throw ConnectFailures.unknownHost(ConnectorCore.connectWhat(remote), e);
    } catch (IOException | RuntimeException e) {
      closeQuietly(socket);
      throw e;
    }
    SocketTransport transport = new SocketTransport(socket, timeout, start, owner, remote);
    if (tls != null) {
      if (owner != null) {
        // Tracked before the handshake, so that closing the connector ends a handshake too.
        owner.track(transport);
      }
      transport.handshake(tls, remote);
    }
    return transport;
  }

  /**
   * Wraps a socket that is already connected; closing the transport closes it.
   *
   * @param connected a connected socket, which the transport now owns
   * @param timeout the transport's timeouts; its session deadline starts now
   * @return the transport
   * @throws IOException if the socket's options cannot be set
   */
  public static SocketTransport wrap(Socket connected, Timeout timeout) throws IOException {
    if (!connected.isConnected()) {
      throw new IllegalArgumentException("socket is not connected: " + connected);
    }
    return new SocketTransport(connected, timeout, System.nanoTime(), null);
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
  public <T> T parseLine(int limit, LineParser<T> parser) throws IOException {
    return reads.parseLine(limit, parser);
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

  /** How this transport's reads wait (one socket read, under the timeout) and fail. */
  private final class SocketWaiter implements BlockingReads.Waiter {
    @Override
    public void checkOpen() throws TransportClosedException {
      SocketTransport.this.checkOpen();
    }

    @Override
    public void awaitInput(long awaited) throws IOException {
      NonBlockingThread.checkMayBlock("a read");
      long wait;
      try {
        wait = Deadlines.waitNanos(timeout, sessionStartNanos, "read");
      } catch (TransportTimeoutException e) {
        throw Deadlines.readTimedOut(timeout, sessionStartNanos, 0L, awaited, inbound.describeUnread());
      }
      long end = wait == Deadlines.FOREVER ? 0L : System.nanoTime() + wait;
      // Not in slices on a VIRTUAL_THREADS session thread: there each slice is a timed park, and
      // on JDK 25 the timer of a timed park is set up by the carrier after the virtual thread has
      // yielded (VirtualThread.afterYield), an allocation that in a full heap throws on the
      // carrier and ends it (with the virtual threads queued on it, which never run again). Such
      // a read whose close could not wake it is woken by its runner's cancel instead, which
      // interrupts the session threads it cancels (an interrupted virtual thread's socket read
      // ends). Any other thread, virtual or not (a SYNC caller, a transport used directly), keeps
      // the slices: nothing would interrupt it.
      long slice = VirtualThreads.onSessionThread() ? Deadlines.FOREVER : readSliceNanos;
      for (;;) {
        long left = wait == Deadlines.FOREVER ? Deadlines.FOREVER : Math.max(1L, end - System.nanoTime());
        boolean lastSlice = left != Deadlines.FOREVER && left <= slice;
        try {
          socket.setSoTimeout(Deadlines.toSoTimeoutMillis(lastSlice ? left : slice));
          if (inbound.readFrom(in, READ_CHUNK) > 0) {
            replies.arrived();
            heard.arrived();
          }
          return;
        } catch (SocketTimeoutException e) {
          if (closedBecause != null) {
            throw new TransportClosedException("transport closed during read: " + closedBecause, e);
          }
          if (lastSlice) {
            TransportTimeoutException t =
                Deadlines.readTimedOut(timeout, sessionStartNanos, wait, awaited, inbound.describeUnread());
            t.initCause(e);
            throw t;
          }
          emptyReadSlices++;
        } catch (SocketException e) {
          if (closedBecause != null) {
            throw new TransportClosedException("transport closed during read: " + closedBecause, e);
          }
          throw e;
        }
      }
    }

    @Override
    public IOException failed(IOException e) {
      return fail(e);
    }
  }

  @Override
  public void write(byte[] src, int offset, int length) throws IOException {
    checkOpen();
    outbound.append(src, offset, length);
    if (outbound.shouldSend()) {
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
    if (outbound.shouldSend()) {
      send();
    }
  }

  @Override
  public void writeLine(String line) throws IOException {
    checkOpen();
    outbound.appendLine(line);
    if (outbound.shouldSend()) {
      send();
    }
  }

  @Override
  public void timeReplies(Ticker ticker) {
    replies.ticker(ticker);
  }

  @Override
  public long sentNanos() {
    return replies.sentNanos();
  }

  @Override
  public long firstByteNanos() {
    return replies.firstByteNanos();
  }

  @Override
  public void flush() throws IOException {
    checkOpen();
    send();
  }

  private void send() throws IOException {
    int size = outbound.size();
    if (size == 0) {
      return;
    }
    NonBlockingThread.checkMayBlock("a flush");
    long wait;
    try {
      wait = Deadlines.waitNanos(timeout, sessionStartNanos, "flush");
    } catch (TransportTimeoutException e) {
      throw fail(e);
    }
    boolean tls = socket != tcp;
    if (tls) {
      tlsSending = true;
      if (closedBecause != null) {
        // Seen by a close that missed tlsSending (both fields volatile: one of us sees the other).
        tlsSending = false;
        checkOpen();
      }
    }
    boolean armed = wait != Deadlines.FOREVER;
    if (armed) {
      writeTimer.arm(wait);
    }
    replies.sending();
    IOException failure = null;
    try {
      out.write(outbound.array(), 0, size);
      out.flush();
    } catch (IOException e) {
      failure = e;
    } finally {
      if (tls) {
        tlsSending = false;
      }
      if (armed && writeTimer.disarm()) {
        // Even if the write completed meanwhile: the watchdog has closed, or is closing, the socket.
        TransportTimeoutException t = Deadlines.timedOut(timeout, sessionStartNanos, wait, "flush");
        if (failure != null) {
          t.initCause(failure);
        }
        failure = t;
      }
    }
    if (failure != null) {
      String because = closedBecause;
      if (because != null) {
        throw new TransportClosedException("transport closed during flush: " + because, failure);
      }
      throw fail(failure);
    }
    outbound.clear();
  }

  /** Closes the TCP socket when a write outlives its timeout, which ends the blocked write. */
  private final class WriteTimer extends WriteWatchdog.Watch {
    @Override
    protected void expired() {
      closeQuietly(tcp);
    }
  }

  @Override
  public void startTls(TlsSettings settings) throws IOException {
    Objects.requireNonNull(settings, "settings");
    checkOpen();
    if (tlsSession != null) {
      throw new IllegalStateException("this transport already speaks TLS");
    }
    send();
    // From here the stream is TLS: buffered bytes, whatever they look like, are an injection.
    inbound.stopExpectingPlaintext();
    if (inbound.size() != 0) {
      try {
        Tls.checkNothingBuffered(inbound.takeAll(), Tls.hostName(settings, remote));
      } catch (StartTlsInjectionException e) {
        close("refused STARTTLS: plaintext past the upgrade point");
        throw e;
      }
    }
    handshake(settings, remote);
  }

  /** Layers TLS over the socket and completes the handshake, or closes this and throws. */
  private void handshake(TlsSettings settings, SocketAddress remote) throws IOException {
    String host = Tls.hostName(settings, remote);
    int port = Tls.port(remote);
    String what = Tls.what(host, port);
    inbound.stopExpectingPlaintext();
    long wait = 0L;
    try {
      wait = Tls.handshakeWaitNanos(settings, timeout, sessionStartNanos, what);
      SSLSocket tls = Tls.newSocket(settings, socket, host, port);
      socket = tls;
      if (closedBecause != null) {
        closeQuietly(tls);
        throw new TransportClosedException("transport closed during " + what + ": " + closedBecause);
      }
      tls.setSoTimeout(Deadlines.toSoTimeoutMillis(wait));
      startHandshake(tls, wait);
      in = tls.getInputStream();
      out = tls.getOutputStream();
      tlsSession = tls.getSession();
    } catch (SocketTimeoutException e) {
      TransportTimeoutException t = e instanceof TransportTimeoutException
          ? (TransportTimeoutException) e : Deadlines.timedOut(timeout, sessionStartNanos, wait, what);
      if (t != e) {
        t.initCause(e);
      }
      close("an operation timed out: " + t.getMessage());
      throw t;
    } catch (TransportClosedException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      if (closedBecause != null) {
        throw new TransportClosedException("transport closed during " + what + ": " + closedBecause, e);
      }
      TlsHandshakeException failed = Tls.handshakeFailed(what, e);
      close("failed: " + failed.getMessage());
      throw failed;
    }
  }

  /**
   * Runs the handshake; its reads are bounded by the socket's timeout, its writes (a peer that
   * does not read) by the write watchdog, which the caller sees as a {@link SocketTimeoutException}.
   */
  private void startHandshake(SSLSocket tls, long wait) throws IOException {
    tlsSending = true;
    if (closedBecause != null) {
      tlsSending = false;
      throw new TransportClosedException("transport closed before the TLS handshake: " + closedBecause);
    }
    boolean armed = wait != Deadlines.FOREVER;
    if (armed) {
      writeTimer.arm(wait);
    }
    Exception failure = null;
    try {
      tls.startHandshake();
    } catch (IOException | RuntimeException e) {
      failure = e;
    } finally {
      tlsSending = false;
      if (armed && writeTimer.disarm()) {
        SocketTimeoutException t = new SocketTimeoutException("TLS handshake writes timed out");
        if (failure != null) {
          t.initCause(failure);
        }
        failure = t;
      }
    }
    if (failure instanceof IOException) {
      throw (IOException) failure;
    }
    if (failure != null) {
      throw (RuntimeException) failure;
    }
  }

  @Override
  public Optional<SSLSession> tlsSession() {
    return Optional.ofNullable(tlsSession);
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
    if (socketClosed) {
      return;
    }
    if (closedBecause == null) {
      closedBecause = because;
    }
    Socket s = socket;
    if (s != tcp && tlsSending) {
      // A writer blocked in the TLS socket holds the lock that SSLSocket.close takes to send its
      // close_notify: end the write first by closing the TCP socket under it.
      closeQuietly(tcp);
    }
    closeQuietly(s);
    // Only now: a close that failed part of the way (the heap ran out) is done again by the
    // next, and a read blocked in the socket still ends.
    socketClosed = true;
    if (owner != null) {
      owner.forget(this);
    }
    closeNotice.closed();
  }

  /** The socket is closed inside {@code close()}: the watcher runs there, on the closer's thread. */
  @Override
  public void whenClosed(Runnable closed) {
    closeNotice.register(closed);
  }

  /** Heard when a read first takes bytes off the socket, on the reader's thread. */
  @Override
  public void whenHeardFrom(Runnable heard) {
    this.heard.whenHeardFrom(heard);
  }

  private void checkOpen() throws TransportClosedException {
    String because = closedBecause;
    if (because != null) {
      throw new TransportClosedException("transport is closed: " + because);
    }
  }

  /**
   * Closes this transport after a failed operation, if {@link FailurePolicy} says so, and returns
   * the exception to throw.
   */
  private IOException fail(IOException e) {
    IOException alert = Tls.alertAfterHandshake(e, tlsSession);
    if (alert != null) {
      e = alert;
    }
    String because = FailurePolicy.closeReason(e);
    if (because != null) {
      close(because);
    }
    return e;
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // Nothing useful to do: the socket is gone either way.
    }
  }

  @Override
  public String toString() {
    SocketAddress remote = socket.getRemoteSocketAddress();
    return "SocketTransport{" + (remote instanceof InetSocketAddress ? remote : "unconnected")
        + (isOpen() ? "" : ", closed") + "}";
  }
}
