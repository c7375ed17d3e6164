package io.weft.testsupport;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback server that misbehaves the same way on every connection, for thousands of
 * connections at once, on one thread: the peer of the fault contract suite ({@link Fault}). Where
 * {@link ScriptedServer} plays a script to one client, this one plays one fault to many.
 *
 * <p>Every connection starts alike: the peer reads one line from the client (the request), then
 * does what its {@link Fault} says. {@link Fault#ECHO} is the well-behaved peer of the control
 * sessions: it echoes every line.
 *
 * <p>Lifecycle: {@link #start(Fault)} binds a loopback port and starts one daemon thread that
 * owns every socket; {@link #close()} closes them all and the listening socket, and returns when
 * that thread has ended, so no descriptor of the peer outlives it.
 */
public final class FaultyPeer implements Closeable {

  /** What the peer does after it has read a connection's first line. */
  public enum Fault {
    /** Echoes every line, CRLF-terminated: the control. */
    ECHO,
    /** Sends 'x' without end and never a line end. */
    ENDLESS_LINE,
    /** Sends nothing, ever; keeps the connection open. */
    STALL,
    /** Sends the start of a line, then aborts the connection with a TCP reset. */
    RESET_MID_LINE,
    /** Answers with one line of bytes that are not the echo (and not UTF-8). */
    GARBAGE,
    /** Sends a long line one byte every {@value #DRIP_INTERVAL_MILLIS} ms. */
    DRIP,
    /** Echoes the first line, then shuts down its sending side and reads on. */
    HALF_CLOSE,
    /**
     * Echoes the first lines of the first {@link Builder#killAfter} connections; when a later
     * connection's first line arrives the whole peer dies: every connection is reset and the
     * port closed, so later connects are refused.
     */
    KILLED_MID_RUN,
    /**
     * Answers with a header line {@code $<n>} and {@code n} bytes ({@link Builder#replyBytes}),
     * byte {@code i} being {@link #replyByte(int)}.
     */
    BIG_REPLY,
    /** Answers with one line of {@link Builder#lineBytes} bytes of 'a' and CRLF. */
    LONG_LINE,
    /**
     * Accepts and never reads a byte: once its receive buffer (kept small,
     * {@value #NO_READ_RECEIVE_BUFFER} bytes, so that a stalled connection holds little kernel
     * memory) and the client's send buffer are full, the client's writes block.
     */
    NO_READ
  }

  /** The receive buffer of {@link Fault#NO_READ}'s connections. */
  public static final int NO_READ_RECEIVE_BUFFER = 64 * 1024;

  /** Pause between the bytes of {@link Fault#DRIP}. */
  public static final long DRIP_INTERVAL_MILLIS = 50;
  /** How long the {@link Fault#DRIP} line is: longer than any deadline the suite sets. */
  public static final int DRIP_LINE_BYTES = 10_000;
  /** What {@link Fault#RESET_MID_LINE} sends before the reset. */
  public static final String RESET_PREFIX = "half a li";
  /** What {@link Fault#GARBAGE} sends: bytes no echo contains, not UTF-8, then CRLF. */
  private static final byte[] GARBAGE_LINE = garbage();

  private static final int REQUEST_LIMIT = 64 * 1024;
  private static final int CHUNK = 64 * 1024;

  private final Fault fault;
  private final int killAfter;
  private final int replyBytes;
  private final int lineBytes;
  /** The one answer of BIG_REPLY or LONG_LINE, shared (read-only) by every connection. */
  private final byte[] canned;
  private final ServerSocketChannel server;
  private final Selector selector;
  private final Thread thread;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicLong bytesSent = new AtomicLong();
  private final List<Conn> conns = new ArrayList<>();
  private volatile boolean closing;
  private volatile boolean killed;
  private volatile Throwable failure;

  private FaultyPeer(Builder b) throws IOException {
    this.fault = b.fault;
    this.killAfter = b.killAfter;
    this.replyBytes = b.replyBytes;
    this.lineBytes = b.lineBytes;
    this.canned = fault == Fault.BIG_REPLY ? bigReply(replyBytes) : fault == Fault.LONG_LINE ? longLine(lineBytes) : null;
    this.selector = Selector.open();
    this.server = ServerSocketChannel.open();
    try {
      if (fault == Fault.NO_READ) {
        // Set before the bind, so that accepted sockets start with it and the kernel does not grow it.
        server.setOption(StandardSocketOptions.SO_RCVBUF, NO_READ_RECEIVE_BUFFER);
      }
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096);
      server.configureBlocking(false);
      server.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException e) {
      server.close();
      selector.close();
      throw e;
    }
    this.thread = new Thread(this::loop, "faulty-peer-" + fault + "-" + address().getPort());
    this.thread.setDaemon(true);
  }

  /** Starts a peer that plays {@code fault} with the builder's defaults. */
  public static FaultyPeer start(Fault fault) throws IOException {
    return builder(fault).start();
  }

  /** The bound, never listening socket behind {@link #refusingAddress()}; guarded by the class. */
  private static Socket refusing;

  public static Builder builder(Fault fault) {
    return new Builder(fault);
  }

  /**
   * A loopback address where nothing listens: a port this JVM keeps bound without listening, so a
   * connect to it is always refused and no other socket can take the port meanwhile (a port
   * bound and closed again could be handed to another test's server). One per JVM, held for its
   * life: one descriptor, taken by the first call.
   */
  public static synchronized InetSocketAddress refusingAddress() {
    if (refusing == null) {
      Socket reservation = new Socket();
      try {
        reservation.setReuseAddress(false);
        reservation.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      } catch (IOException e) {
        try {
          reservation.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw new UncheckedIOException(e);
      }
      refusing = reservation;
    }
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), refusing.getLocalPort());
  }

  /** Byte {@code i} of a {@link Fault#BIG_REPLY} body. */
  public static byte replyByte(int i) {
    return (byte) (i * 31 + (i >>> 8));
  }

  /** Where clients connect. */
  public InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.socket().getLocalPort());
  }

  public Fault fault() {
    return fault;
  }

  /** Connections accepted so far. */
  public int accepted() {
    return accepted.get();
  }

  /** First lines (requests) read so far. */
  public int requests() {
    return requests.get();
  }

  /**
   * Waits until at least {@code count} first lines have been read, or {@code timeout} passes;
   * returns whether they were.
   */
  public boolean awaitRequests(int count, long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    synchronized (requests) {
      while (requests.get() < count) {
        long left = deadline - System.nanoTime();
        if (left <= 0L) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(requests, left);
      }
      return true;
    }
  }

  /** True once a {@link Fault#KILLED_MID_RUN} peer has died. */
  public boolean killed() {
    return killed;
  }

  /** Something that went wrong in the peer itself (not a client's close or reset), or null. */
  public Throwable failure() {
    return failure;
  }

  /** Closes every connection and the port; returns when the peer's thread has ended. */
  @Override
  public void close() {
    closing = true;
    selector.wakeup();
    try {
      if (!stopped.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException(thread.getName() + " did not stop within 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- the peer's thread

  private void loop() {
    try {
      while (!closing) {
        long now = System.nanoTime();
        long nextDrip = Long.MAX_VALUE;
        for (Conn c : conns) {
          if (c.dripAt != 0L) {
            nextDrip = Math.min(nextDrip, c.dripAt);
          }
        }
        long waitMillis = nextDrip == Long.MAX_VALUE ? 0L
            : Math.max(1L, TimeUnit.NANOSECONDS.toMillis(nextDrip - now + 999_999L));
        selector.select(waitMillis);
        for (SelectionKey key : selector.selectedKeys()) {
          if (!key.isValid()) {
            continue;
          }
          if (key.isAcceptable()) {
            acceptAll();
            continue;
          }
          Conn c = (Conn) key.attachment();
          try {
            if (key.isReadable()) {
              c.onReadable();
            }
            if (key.isValid() && key.isWritable()) {
              c.onWritable();
            }
          } catch (IOException e) {
            // The client closed or reset: its business, and the end of this connection.
            c.close();
          }
        }
        selector.selectedKeys().clear();
        drip();
        conns.removeIf(c -> !c.channel.isOpen());
      }
    } catch (Throwable t) {
      failure = t;
    } finally {
      for (Conn c : conns) {
        c.close();
      }
      closeQuietly(server);
      closeQuietly(selector);
      stopped.countDown();
    }
  }

  private void acceptAll() throws IOException {
    for (;;) {
      SocketChannel ch = server.accept();
      if (ch == null) {
        return;
      }
      int index = accepted.getAndIncrement();
      ch.configureBlocking(false);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      Conn c = new Conn(ch, index);
      c.key = ch.register(selector, fault == Fault.NO_READ ? 0 : SelectionKey.OP_READ, c);
      conns.add(c);
    }
  }

  private void drip() {
    long now = System.nanoTime();
    for (Conn c : conns) {
      if (c.dripAt != 0L && now - c.dripAt >= 0L) {
        try {
          c.sendDripByte();
        } catch (IOException e) {
          c.close();
        }
      }
    }
  }

  /** Resets every connection and closes the port: the peer dies. */
  private void kill() {
    killed = true;
    closeQuietly(server);
    for (Conn c : conns) {
      c.reset();
    }
  }

  private static byte[] bigReply(int n) {
    byte[] header = ("$" + n + "\r\n").getBytes(StandardCharsets.US_ASCII);
    byte[] reply = Arrays.copyOf(header, header.length + n);
    for (int i = 0; i < n; i++) {
      reply[header.length + i] = replyByte(i);
    }
    return reply;
  }

  private static byte[] longLine(int n) {
    byte[] line = new byte[n + 2];
    Arrays.fill(line, 0, n, (byte) 'a');
    line[n] = '\r';
    line[n + 1] = '\n';
    return line;
  }

  private static byte[] garbage() {
    byte[] line = new byte[202];
    for (int i = 0; i < 200; i++) {
      line[i] = (byte) (0x80 | (i * 7));
    }
    line[200] = '\r';
    line[201] = '\n';
    return line;
  }

  private static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  /** One client connection, driven by the peer's thread only. */
  private final class Conn {
    final SocketChannel channel;
    final int index;
    SelectionKey key;
    final ByteBuffer in = ByteBuffer.allocate(REQUEST_LIMIT);
    boolean requested;
    ByteBuffer pending;
    boolean endless;
    long dripAt;
    int dripped;

    Conn(SocketChannel channel, int index) {
      this.channel = channel;
      this.index = index;
    }

    void onReadable() throws IOException {
      int n = channel.read(in);
      if (n < 0) {
        close();
        return;
      }
      for (;;) {
        byte[] line = takeLine();
        if (line == null) {
          if (!in.hasRemaining()) {
            // A client line over the request limit: not what the suite sends; drop what came.
            in.clear();
          }
          return;
        }
        if (!requested) {
          requested = true;
          synchronized (requests) {
            requests.incrementAndGet();
            requests.notifyAll();
          }
          onRequest(line);
          if (!channel.isOpen()) {
            return;
          }
        } else if (fault == Fault.ECHO) {
          send(line);
        }
      }
    }

    /** The next CRLF- or LF-terminated line from {@link #in}, terminator included, or null. */
    private byte[] takeLine() {
      for (int i = 0; i < in.position(); i++) {
        if (in.get(i) == '\n') {
          byte[] line = new byte[i + 1];
          in.flip();
          in.get(line);
          in.compact();
          return line;
        }
      }
      return null;
    }

    private void onRequest(byte[] line) throws IOException {
      switch (fault) {
        case ECHO:
          send(line);
          break;
        case ENDLESS_LINE:
          endless = true;
          key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
          break;
        case STALL:
          break;
        case RESET_MID_LINE:
          channel.write(ByteBuffer.wrap(RESET_PREFIX.getBytes(StandardCharsets.US_ASCII)));
          reset();
          break;
        case GARBAGE:
          send(GARBAGE_LINE);
          break;
        case DRIP:
          dripAt = System.nanoTime();
          break;
        case HALF_CLOSE:
          send(line);
          break;
        case KILLED_MID_RUN:
          if (index < killAfter) {
            send(line);
          } else {
            kill();
          }
          break;
        case BIG_REPLY:
        case LONG_LINE:
          send(canned);
          break;
        default:
          throw new AssertionError(fault);
      }
    }

    /** Sends what it can now and the rest when the socket is writable. */
    void send(byte[] bytes) throws IOException {
      if (pending != null) {
        ByteBuffer joined = ByteBuffer.allocate(pending.remaining() + bytes.length);
        joined.put(pending).put(bytes).flip();
        pending = joined;
      } else {
        pending = ByteBuffer.wrap(bytes).asReadOnlyBuffer();
      }
      onWritable();
    }

    void onWritable() throws IOException {
      if (pending != null) {
        bytesSent.addAndGet(channel.write(pending));
        if (!pending.hasRemaining()) {
          pending = null;
          if (fault == Fault.HALF_CLOSE) {
            channel.shutdownOutput();
          }
        }
      } else if (endless) {
        ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
        Arrays.fill(chunk.array(), (byte) 'x');
        bytesSent.addAndGet(channel.write(chunk));
      }
      boolean wantWrite = pending != null || endless;
      int ops = wantWrite ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ;
      if (key.isValid() && key.interestOps() != ops) {
        key.interestOps(ops);
      }
    }

    void sendDripByte() throws IOException {
      byte b = dripped == DRIP_LINE_BYTES ? (byte) '\n' : (byte) '.';
      channel.write(ByteBuffer.wrap(new byte[] {b}));
      dripped++;
      dripAt = dripped > DRIP_LINE_BYTES ? 0L : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRIP_INTERVAL_MILLIS);
    }

    void reset() {
      try {
        channel.setOption(StandardSocketOptions.SO_LINGER, 0);
      } catch (IOException ignored) {
        // already closed: nothing to reset
      }
      close();
    }

    void close() {
      dripAt = 0L;
      endless = false;
      if (key != null) {
        key.cancel();
      }
      closeQuietly(channel);
    }
  }

  /** Configures a {@link FaultyPeer}. */
  public static final class Builder {
    private final Fault fault;
    private int killAfter = 100;
    private int replyBytes = 1 << 20;
    private int lineBytes = 1_000_000;

    private Builder(Fault fault) {
      this.fault = Objects.requireNonNull(fault, "fault");
    }

    /** {@link Fault#KILLED_MID_RUN}: connections served before the one that kills the peer. */
    public Builder killAfter(int connections) {
      if (connections < 0) {
        throw new IllegalArgumentException("connections < 0: " + connections);
      }
      this.killAfter = connections;
      return this;
    }

    /** {@link Fault#BIG_REPLY}: the body's size. */
    public Builder replyBytes(int bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("bytes < 0: " + bytes);
      }
      this.replyBytes = bytes;
      return this;
    }

    /** {@link Fault#LONG_LINE}: the line's size without its CRLF. */
    public Builder lineBytes(int bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("bytes < 0: " + bytes);
      }
      this.lineBytes = bytes;
      return this;
    }

    public FaultyPeer start() throws IOException {
      FaultyPeer peer = new FaultyPeer(this);
      peer.thread.start();
      return peer;
    }
  }
}
