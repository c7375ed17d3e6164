package io.weft.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.service.IoAcceptor;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.AttributeKey;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.socket.nio.NioSocketAcceptor;
import org.apache.mina.transport.vmpipe.VmPipeAcceptor;
import org.apache.mina.transport.vmpipe.VmPipeAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one echo server of Weft's tests and benchmarks: a MINA acceptor that echoes every line it
 * receives, on loopback TCP (a free port on one or {@linkplain Builder#hosts several} loopback
 * addresses) or on MINA's in-VM pipe (a free {@link VmPipeAddress}).
 *
 * <p>A line ends at LF; by default it is echoed byte for byte, terminator included. A
 * {@linkplain Builder#replies reply function} can answer something else instead (for testing
 * clients against a misbehaving server). A line longer than {@link Builder#maxLineLength}
 * closes its session.
 *
 * <p>An optional {@linkplain Builder#delay delay} holds each reply back, as the seed
 * experiment's "1 ms per read/write" variant did, without ever blocking a MINA I/O thread:
 * delay-line threads (one per core by default, each serving a fixed share of the sessions so
 * that a session's replies stay in order) write each reply when it is due. With one delay for
 * every reply, arrival order is due order, so each line is a FIFO queue rather than a timer
 * heap, which holds at 100,000 sessions. Due times are rounded up to the next
 * {@value #TICK_NANOS} ns tick and everything due in a tick goes out after one wake-up: a parked
 * thread oversleeps by tens of microseconds on Linux, and waking once per reply would space
 * replies by that oversleep and throttle a whole benchmark. So each reply waits at least the
 * delay and at most one tick more (plus the wake-up latency).
 *
 * <p>{@link #hold()} keeps back every reply that falls due until {@link #release()}: a benchmark
 * uses it to catch every session waiting for its first reply. {@link #linesReceived()} counts
 * lines as they arrive (after their reply is queued), {@link #linesEchoed()} as they are answered.
 *
 * <p>Started by {@link Builder#startTcp()} or {@link Builder#startVmPipe()}; {@link #close()}
 * (from a thread that is not one of MINA's) closes every session and ends every thread.
 */
public final class EchoServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EchoServer.class);
  private static final AttributeKey PENDING = new AttributeKey(EchoServer.class, "pending");
  private static final AtomicInteger IDS = new AtomicInteger();

  /** Replies due within one tick leave after one wake-up. */
  static final long TICK_NANOS = 100_000L;

  private final IoAcceptor acceptor;
  /** One delay line per shard; a session always uses the same one, keeping its order. */
  private final DelayLine[] delayLines;
  private final long delayNanos;
  private final UnaryOperator<String> replies;
  private final int maxLineLength;
  private final List<SocketAddress> addresses;
  private final LongAdder linesReceived = new LongAdder();
  private final LongAdder linesEchoed = new LongAdder();
  private final AtomicLong sessionsOpened = new AtomicLong();
  private final Object holdLock = new Object();
  private final List<Reply> heldReplies = new ArrayList<>();
  private volatile boolean held;
  private volatile boolean closed;

  private EchoServer(Builder builder, boolean vmPipe) throws IOException {
    this.delayNanos = builder.delayNanos;
    this.replies = builder.replies;
    this.maxLineLength = builder.maxLineLength;
    int id = IDS.incrementAndGet();
    this.delayLines = new DelayLine[builder.delayThreads];
    for (int i = 0; i < delayLines.length; i++) {
      delayLines[i] = new DelayLine("echo-server-" + id + "-delay-" + i);
    }
    IoAcceptor made = null;
    try {
      if (vmPipe) {
        VmPipeAcceptor pipe = new VmPipeAcceptor();
        made = pipe;
        pipe.setHandler(new Handler());
        pipe.bind(new VmPipeAddress(0));
      } else {
        NioSocketAcceptor nio = builder.processorCount > 0
            ? new NioSocketAcceptor(builder.processorCount)
            : new NioSocketAcceptor();
        nio.setReuseAddress(true);
        nio.setBacklog(builder.backlog);
        nio.getSessionConfig().setTcpNoDelay(true);
        made = nio;
        nio.setHandler(new Handler());
        List<SocketAddress> bindTo = new ArrayList<>();
        for (InetAddress host : builder.hosts) {
          bindTo.add(new InetSocketAddress(host, 0));
        }
        nio.bind(bindTo);
      }
      this.addresses = inBindOrder(made.getLocalAddresses(), builder.hosts);
    } catch (IOException | RuntimeException e) {
      if (made != null) {
        made.dispose(true);
      }
      stopDelayLines();
      throw e;
    }
    this.acceptor = made;
    for (DelayLine line : delayLines) {
      line.start();
    }
  }

  /** Options for a server. */
  public static Builder builder() {
    return new Builder();
  }

  /** A TCP echo server on a free loopback port, no delay. */
  public static EchoServer tcp() throws IOException {
    return builder().startTcp();
  }

  /** An in-VM pipe echo server on a free pipe address, no delay. */
  public static EchoServer vmPipe() throws IOException {
    return builder().startVmPipe();
  }

  /** Where clients connect: an {@link InetSocketAddress} or a {@link VmPipeAddress}; the first bound. */
  public SocketAddress address() {
    return addresses.get(0);
  }

  /** Where clients connect: one address per bound host (one for the pipe). */
  public List<SocketAddress> addresses() {
    return addresses;
  }

  /** The delay before each reply, in nanoseconds. */
  public long delayNanos() {
    return delayNanos;
  }

  /** Lines (LF) received so far, each counted once its reply is queued. */
  public long linesReceived() {
    return linesReceived.sum();
  }

  /** Lines answered so far (counted as the reply is written, after any delay or hold). */
  public long linesEchoed() {
    return linesEchoed.sum();
  }

  /** Sessions accepted so far. */
  public long sessionsOpened() {
    return sessionsOpened.get();
  }

  /** Sessions open now. */
  public int openSessions() {
    return acceptor.getManagedSessionCount();
  }

  /** Keeps back every reply that falls due from now on, until {@link #release()}. */
  public void hold() {
    held = true;
  }

  /**
   * Stops holding and sends the replies kept back, in order, each the delay from now: a
   * released session's first exchange waits the delay like every other.
   */
  public void release() {
    List<Reply> replies;
    synchronized (holdLock) {
      held = false;
      replies = new ArrayList<>(heldReplies);
      heldReplies.clear();
    }
    // Through the delay lines, not this thread: on the pipe a write runs the client's code.
    long due = dueTick(System.nanoTime() + delayNanos);
    for (Reply reply : replies) {
      lineFor(reply.session).add(new Reply(reply.session, reply.bytes, reply.lines, due));
    }
  }

  /** Stops accepting, closes every session, drops replies not yet due and ends its threads. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopDelayLines();
    acceptor.unbind();
    acceptor.dispose(true);
    for (DelayLine line : delayLines) {
      line.join();
    }
  }

  private void stopDelayLines() {
    for (DelayLine line : delayLines) {
      line.interrupt();
    }
  }

  @Override
  public String toString() {
    return "EchoServer{" + addresses + (delayNanos > 0 ? ", delay " + delayNanos / 1000 + " µs" : "")
        + (closed ? ", closed" : "") + "}";
  }

  /** The acceptor's addresses (a set) in the order their hosts were given. */
  private static List<SocketAddress> inBindOrder(java.util.Set<SocketAddress> bound, List<InetAddress> hosts) {
    List<SocketAddress> ordered = new ArrayList<>(bound);
    ordered.sort(java.util.Comparator.comparingInt(address -> address instanceof InetSocketAddress
        ? hosts.indexOf(((InetSocketAddress) address).getAddress()) : 0));
    return List.copyOf(ordered);
  }

  /** {@code due} rounded up to a tick, so replies due close together leave together. */
  private static long dueTick(long due) {
    return due - Math.floorMod(due, TICK_NANOS) + TICK_NANOS;
  }

  private DelayLine lineFor(IoSession session) {
    return delayLines[(int) (session.getId() % delayLines.length)];
  }

  /** Writes {@code reply} now, or keeps it back while held. */
  private void write(Reply reply) {
    if (held) {
      synchronized (holdLock) {
        if (held) {
          heldReplies.add(reply);
          return;
        }
      }
    }
    if (reply.session.isConnected()) {
      // Counted first: a client that has the reply can rely on the count.
      linesEchoed.add(reply.lines);
      reply.session.write(reply.bytes);
    }
  }

  /** A thread writing replies as they fall due, first in first out. */
  private final class DelayLine {
    private final LinkedBlockingQueue<Reply> queue = new LinkedBlockingQueue<>();
    private final Thread thread;

    DelayLine(String name) {
      thread = new Thread(this::run, name);
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void add(Reply reply) {
      queue.add(reply);
    }

    void interrupt() {
      thread.interrupt();
    }

    void join() {
      try {
        thread.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void run() {
      while (!closed) {
        Reply next;
        try {
          next = queue.take();
        } catch (InterruptedException e) {
          return;
        }
        for (long wait = next.due - System.nanoTime(); wait > 0; wait = next.due - System.nanoTime()) {
          LockSupport.parkNanos(this, wait);
          if (closed) {
            return;
          }
        }
        write(next);
      }
    }
  }

  private static final class Reply {
    final IoSession session;
    final IoBuffer bytes;
    final int lines;
    final long due;

    Reply(IoSession session, IoBuffer bytes, int lines, long due) {
      this.session = session;
      this.bytes = bytes;
      this.lines = lines;
      this.due = due;
    }
  }

  private final class Handler extends IoHandlerAdapter {
    @Override
    public void sessionCreated(IoSession session) {
      session.setAttribute(PENDING, new ByteArrayOutputStream());
      sessionsOpened.incrementAndGet();
    }

    @Override
    public void messageReceived(IoSession session, Object message) {
      IoBuffer in = (IoBuffer) message;
      byte[] bytes = new byte[in.remaining()];
      in.get(bytes);
      ByteArrayOutputStream pending = (ByteArrayOutputStream) session.getAttribute(PENDING);
      ByteArrayOutputStream reply = null;
      int lines = 0;
      int start = 0;
      for (int i = 0; i < bytes.length; i++) {
        if (bytes[i] != '\n') {
          continue;
        }
        byte[] line;
        if (pending.size() == 0) {
          line = java.util.Arrays.copyOfRange(bytes, start, i + 1);
        } else {
          pending.write(bytes, start, i + 1 - start);
          line = pending.toByteArray();
          pending.reset();
        }
        if (line.length - 1 > maxLineLength) {
          tooLong(session);
          return;
        }
        if (reply == null) {
          reply = new ByteArrayOutputStream(bytes.length + 2);
        }
        answer(line, reply);
        lines++;
        start = i + 1;
      }
      pending.write(bytes, start, bytes.length - start);
      if (pending.size() > maxLineLength) {
        tooLong(session);
        return;
      }
      if (reply != null) {
        send(session, IoBuffer.wrap(reply.toByteArray()), lines);
      }
    }

    private void tooLong(IoSession session) {
      LOG.debug("closing {}: line longer than {} bytes", session, maxLineLength);
      session.closeNow();
    }

    private void answer(byte[] line, ByteArrayOutputStream reply) {
      if (replies == null) {
        reply.write(line, 0, line.length);
        return;
      }
      int end = line.length - 1;
      if (end > 0 && line[end - 1] == '\r') {
        end--;
      }
      String answer = replies.apply(new String(line, 0, end, StandardCharsets.UTF_8));
      byte[] bytes = (answer + "\r\n").getBytes(StandardCharsets.UTF_8);
      reply.write(bytes, 0, bytes.length);
    }

    private void send(IoSession session, IoBuffer reply, int lines) {
      if (delayNanos == 0L && !held) {
        linesEchoed.add(lines);
        session.write(reply);
      } else {
        lineFor(session).add(new Reply(session, reply, lines, dueTick(System.nanoTime() + delayNanos)));
      }
      // Counted after the reply is queued: whoever sees the count can rely on it.
      linesReceived.add(lines);
    }

    @Override
    public void exceptionCaught(IoSession session, Throwable cause) {
      LOG.debug("echo session {} failed", session, cause);
      session.closeNow();
    }
  }

  /** Options for an {@link EchoServer}. */
  public static final class Builder {
    private long delayNanos;
    private UnaryOperator<String> replies;
    private int maxLineLength = 64 * 1024;
    private int processorCount;
    private int backlog = 4096;
    private int delayThreads = Math.max(1, Runtime.getRuntime().availableProcessors());
    private List<InetAddress> hosts = List.of(InetAddress.getLoopbackAddress());

    private Builder() {}

    /**
     * TCP: binds a free port on each of {@code hosts} (e.g. 127.0.0.1 .. 127.0.0.4: all of
     * 127.0.0.0/8 is loopback on Linux, and each address has its own ephemeral port range, so
     * more sessions fit). Default: the loopback address alone.
     */
    public Builder hosts(List<InetAddress> hosts) {
      if (hosts.isEmpty()) {
        throw new IllegalArgumentException("hosts is empty");
      }
      this.hosts = List.copyOf(hosts);
      return this;
    }

    /** TCP: binds 127.0.0.1 .. 127.0.0.{@code count}. */
    public Builder loopbackHosts(int count) {
      if (count < 1 || count > 254) {
        throw new IllegalArgumentException("count not in 1..254: " + count);
      }
      List<InetAddress> list = new ArrayList<>();
      for (int i = 1; i <= count; i++) {
        try {
          list.add(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) i}));
        } catch (java.net.UnknownHostException e) {
          throw new AssertionError("a four-byte address is always valid", e);
        }
      }
      return hosts(list);
    }

    /**
     * Delay-line threads that write delayed and held replies, each serving a fixed share of the
     * sessions; default one per core. On the in-VM pipe a reply's write runs the client's
     * callback on this thread.
     */
    public Builder delayThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("threads < 1: " + threads);
      }
      this.delayThreads = threads;
      return this;
    }

    /** Holds each reply back by {@code delay} (0, the default, for none). */
    public Builder delay(long delay, TimeUnit unit) {
      if (delay < 0) {
        throw new IllegalArgumentException("delay < 0: " + delay);
      }
      this.delayNanos = unit.toNanos(delay);
      return this;
    }

    /**
     * Answers each line (without its terminator) with {@code replies.apply(line)} and CRLF,
     * instead of echoing it byte for byte.
     */
    public Builder replies(UnaryOperator<String> replies) {
      this.replies = replies;
      return this;
    }

    /** The longest line accepted; a longer one closes its session. Default 64 KiB. */
    public Builder maxLineLength(int bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("bytes < 1: " + bytes);
      }
      this.maxLineLength = bytes;
      return this;
    }

    /** NIO processor threads for TCP; default (0) is MINA's. */
    public Builder processorCount(int count) {
      if (count < 0) {
        throw new IllegalArgumentException("count < 0: " + count);
      }
      this.processorCount = count;
      return this;
    }

    /** The TCP accept backlog; default 4096. */
    public Builder backlog(int backlog) {
      if (backlog < 1) {
        throw new IllegalArgumentException("backlog < 1: " + backlog);
      }
      this.backlog = backlog;
      return this;
    }

    public EchoServer startTcp() throws IOException {
      return new EchoServer(this, false);
    }

    public EchoServer startVmPipe() throws IOException {
      return new EchoServer(this, true);
    }
  }
}
