package io.weft.perf.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.service.IoAcceptor;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.socket.nio.NioSocketAcceptor;
import org.apache.mina.transport.vmpipe.VmPipeAcceptor;
import org.apache.mina.transport.vmpipe.VmPipeAddress;

/**
 * The benchmarks' echo server on MINA: sends back every byte it receives, each chunk after a
 * fixed delay (0 = at once), over loopback TCP (bound on one or more 127.x addresses, so that
 * more sessions fit in the ephemeral port range) or the in-VM pipe.
 *
 * <p>Delayed replies go through one FIFO "delay line" thread: with one delay for every reply,
 * arrival order is due order, so a queue beats a timer heap at 100,000 sessions. Due times are
 * rounded up to the next {@value #TICK_NANOS} ns tick and everything due in a tick goes out
 * after one wake-up: a parked thread oversleeps by tens of microseconds on Linux, and waking
 * once per reply would space replies by that oversleep and throttle the whole run. So each
 * reply waits at least the delay and at most one tick more (plus the wake-up latency). While
 * {@link #hold() held}, replies that fall due are kept back until {@link #release()}: the
 * harness uses that to catch every session waiting for its first reply and weigh the heap.
 *
 * <p>Lifecycle: start with {@link #tcp} or {@link #pipe}, use {@link #addresses()}, then
 * {@link #close()} (from a thread that is not one of MINA's).
 *
 * <p>Stand-in until test-support's EchoServer is in: clients take plain {@link SocketAddress}es,
 * so switching is a matter of passing that server's addresses.
 */
public final class DelayingEchoServer implements BenchmarkEchoServer {
  static final long TICK_NANOS = 100_000L;

  private final IoAcceptor acceptor;
  private final List<SocketAddress> addresses;
  private final long delayNanos;
  private final LinkedBlockingQueue<Reply> delayLine = new LinkedBlockingQueue<>();
  private final Thread delayThread;
  private final LongAdder linesReceived = new LongAdder();
  private final Object holdLock = new Object();
  private final List<Reply> heldReplies = new ArrayList<>();
  private volatile boolean held;
  private volatile boolean closed;

  private DelayingEchoServer(IoAcceptor acceptor, List<? extends SocketAddress> bindTo,
      long delayNanos) throws IOException {
    this.acceptor = acceptor;
    this.delayNanos = delayNanos;
    acceptor.setHandler(new EchoHandler());
    acceptor.bind(bindTo);
    this.addresses = List.copyOf(acceptor.getLocalAddresses());
    this.delayThread = new Thread(this::runDelayLine, "echo-delay-line");
    delayThread.setDaemon(true);
    delayThread.start();
  }

  /**
   * Starts a TCP echo server on an ephemeral port of each of {@code hosts} (e.g. 127.0.0.1,
   * 127.0.0.2: all of 127.0.0.0/8 is loopback on Linux).
   */
  public static DelayingEchoServer tcp(List<InetAddress> hosts, long delay, TimeUnit unit)
      throws IOException {
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("hosts is empty");
    }
    NioSocketAcceptor acceptor = new NioSocketAcceptor();
    acceptor.setReuseAddress(true);
    // Thousands of sessions connect at once; the kernel caps this at net.core.somaxconn.
    acceptor.setBacklog(65_535);
    acceptor.getSessionConfig().setTcpNoDelay(true);
    List<SocketAddress> bindTo = new ArrayList<>();
    for (InetAddress host : hosts) {
      bindTo.add(new InetSocketAddress(host, 0));
    }
    return start(acceptor, bindTo, delay, unit);
  }

  /** Starts an in-VM pipe echo server on a free pipe port. */
  public static DelayingEchoServer pipe(long delay, TimeUnit unit) throws IOException {
    return start(new VmPipeAcceptor(), List.of(new VmPipeAddress(0)), delay, unit);
  }

  private static DelayingEchoServer start(IoAcceptor acceptor, List<SocketAddress> bindTo,
      long delay, TimeUnit unit) throws IOException {
    if (delay < 0) {
      throw new IllegalArgumentException("delay < 0: " + delay);
    }
    try {
      return new DelayingEchoServer(acceptor, bindTo, unit.toNanos(delay));
    } catch (IOException | RuntimeException e) {
      acceptor.dispose(true);
      throw e;
    }
  }

  /** Where clients connect: one address per bound host (one for the pipe). */
  @Override
  public List<SocketAddress> addresses() {
    return addresses;
  }

  /** The delay before each reply, in nanoseconds. */
  public long delayNanos() {
    return delayNanos;
  }

  /** How many line ends (LF) this server has received since it started. */
  @Override
  public long linesReceived() {
    return linesReceived.sum();
  }

  /** Sessions open on the server side now. */
  public int openSessions() {
    return acceptor.getManagedSessionCount();
  }

  /** Keeps back every reply that falls due from now on, until {@link #release()}. */
  @Override
  public void hold() {
    held = true;
  }

  /**
   * Stops holding and sends the replies kept back, in order, each the delay from now: a
   * released run's first exchange waits the delay like every other.
   */
  @Override
  public void release() {
    List<Reply> replies;
    synchronized (holdLock) {
      held = false;
      replies = new ArrayList<>(heldReplies);
      heldReplies.clear();
    }
    // Through the delay line, not this thread: on the pipe a write runs the client's code.
    long due = dueTick(System.nanoTime() + delayNanos);
    for (Reply reply : replies) {
      delayLine.add(new Reply(reply.session, reply.bytes, due));
    }
  }

  @Override
  public void close() {
    closed = true;
    delayThread.interrupt();
    acceptor.unbind();
    acceptor.dispose(true);
  }

  /** {@code due} rounded up to a tick, so replies due close together leave together. */
  private static long dueTick(long due) {
    return due - Math.floorMod(due, TICK_NANOS) + TICK_NANOS;
  }

  private void reply(IoSession session, IoBuffer bytes) {
    if (held) {
      synchronized (holdLock) {
        if (held) {
          heldReplies.add(new Reply(session, bytes, 0L));
          return;
        }
      }
    }
    session.write(bytes);
  }

  private void runDelayLine() {
    while (!closed) {
      Reply next;
      try {
        next = delayLine.take();
      } catch (InterruptedException e) {
        return;
      }
      for (long wait = next.due - System.nanoTime(); wait > 0; wait = next.due - System.nanoTime()) {
        LockSupport.parkNanos(wait);
        if (closed) {
          return;
        }
      }
      if (next.session.isConnected()) {
        reply(next.session, next.bytes);
      }
    }
  }

  private final class EchoHandler extends IoHandlerAdapter {
    @Override
    public void messageReceived(IoSession session, Object message) {
      IoBuffer in = (IoBuffer) message;
      IoBuffer copy = IoBuffer.allocate(in.remaining());
      int lines = 0;
      while (in.hasRemaining()) {
        byte b = in.get();
        if (b == '\n') {
          lines++;
        }
        copy.put(b);
      }
      copy.flip();
      if (delayNanos == 0L && !held) {
        session.write(copy);
      } else {
        delayLine.add(new Reply(session, copy, dueTick(System.nanoTime() + delayNanos)));
      }
      // Counted after the reply is queued: a harness that sees the count can rely on it.
      linesReceived.add(lines);
    }

    @Override
    public void exceptionCaught(IoSession session, Throwable cause) {
      session.closeNow();
    }
  }

  private static final class Reply {
    final IoSession session;
    final IoBuffer bytes;
    final long due;

    Reply(IoSession session, IoBuffer bytes, long due) {
      this.session = session;
      this.bytes = bytes;
      this.due = due;
    }
  }
}
