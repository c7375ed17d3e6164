package io.weft.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 * The server of the seed experiment and of every benchmark: a MINA acceptor that echoes every line it receives, on
 * loopback TCP (a free port) or on MINA's in-VM pipe (a free {@link VmPipeAddress}).
 *
 * <p>A line ends at LF; by default it is echoed byte for byte, terminator included. A
 * {@linkplain Builder#replies reply function} can answer something else instead (for testing
 * clients against a misbehaving server). An optional {@linkplain Builder#delay delay} holds each
 * reply back, as the experiment's "1 ms per read/write" variant did, without ever blocking a
 * MINA I/O thread: scheduler threads (one per core by default, each serving a fixed share of
 * the sessions so that a session's replies stay in order) write each reply when it is due. A line longer than {@link Builder#maxLineLength} closes its
 * session.
 *
 * <p>Started by {@link Builder#startTcp()} or {@link Builder#startVmPipe()}; {@link #close()}
 * closes every session and releases every thread.
 */
public final class EchoServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EchoServer.class);
  private static final AttributeKey PENDING = new AttributeKey(EchoServer.class, "pending");
  private static final AtomicInteger IDS = new AtomicInteger();

  private final IoAcceptor acceptor;
  /** One single-thread scheduler per shard; a session always uses the same one, keeping its order. */
  private final ScheduledExecutorService[] schedulers;
  private final long delayNanos;
  private final UnaryOperator<String> replies;
  private final int maxLineLength;
  private final SocketAddress address;
  private final AtomicLong linesEchoed = new AtomicLong();
  private final AtomicLong sessionsOpened = new AtomicLong();
  private volatile boolean closed;

  private EchoServer(Builder builder, boolean vmPipe) throws IOException {
    this.delayNanos = builder.delayNanos;
    this.replies = builder.replies;
    this.maxLineLength = builder.maxLineLength;
    if (delayNanos > 0L) {
      int id = IDS.incrementAndGet();
      this.schedulers = new ScheduledExecutorService[builder.delayThreads];
      for (int i = 0; i < schedulers.length; i++) {
        String name = "echo-server-" + id + "-delay-" + i;
        schedulers[i] = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread thread = new Thread(r, name);
          thread.setDaemon(true);
          return thread;
        });
      }
    } else {
      this.schedulers = null;
    }
    try {
      if (vmPipe) {
        VmPipeAcceptor pipe = new VmPipeAcceptor();
        pipe.setHandler(new Handler());
        pipe.bind(new VmPipeAddress(0));
        this.acceptor = pipe;
        this.address = pipe.getLocalAddress();
      } else {
        NioSocketAcceptor nio = builder.processorCount > 0
            ? new NioSocketAcceptor(builder.processorCount)
            : new NioSocketAcceptor();
        nio.setReuseAddress(true);
        nio.setBacklog(builder.backlog);
        nio.getSessionConfig().setTcpNoDelay(true);
        nio.setHandler(new Handler());
        nio.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.acceptor = nio;
        this.address = nio.getLocalAddress();
      }
    } catch (IOException | RuntimeException e) {
      shutdownSchedulers();
      throw e;
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

  /** Where clients connect: an {@link InetSocketAddress} or a {@link VmPipeAddress}. */
  public SocketAddress address() {
    return address;
  }

  /** Lines answered so far (counted when the reply is written, after any delay). */
  public long linesEchoed() {
    return linesEchoed.get();
  }

  /** Sessions accepted so far. */
  public long sessionsOpened() {
    return sessionsOpened.get();
  }

  /** Sessions open now. */
  public int openSessions() {
    return acceptor.getManagedSessionCount();
  }

  /** Stops accepting, closes every session, drops replies not yet due and ends its threads. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    shutdownSchedulers();
    acceptor.unbind();
    acceptor.dispose(true);
    if (schedulers != null) {
      try {
        for (ScheduledExecutorService scheduler : schedulers) {
          scheduler.awaitTermination(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void shutdownSchedulers() {
    if (schedulers != null) {
      for (ScheduledExecutorService scheduler : schedulers) {
        scheduler.shutdownNow();
      }
    }
  }

  @Override
  public String toString() {
    return "EchoServer{" + address + (delayNanos > 0 ? ", delay " + delayNanos / 1000 + " µs" : "")
        + (closed ? ", closed" : "") + "}";
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
      if (schedulers == null) {
        session.write(reply);
        linesEchoed.addAndGet(lines);
        return;
      }
      // Equal delays on one single-thread scheduler keep a session's replies in order: it runs
      // ties first-in first-out.
      ScheduledExecutorService scheduler = schedulers[(int) (session.getId() % schedulers.length)];
      try {
        scheduler.schedule(() -> {
          if (session.isConnected()) {
            session.write(reply);
            linesEchoed.addAndGet(lines);
          }
        }, delayNanos, TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        session.closeNow(); // the server is closing
      }
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

    private Builder() {}

    /**
     * Threads that write delayed replies, each serving a fixed share of the sessions; default
     * one per core. On the in-VM pipe a reply's write runs the client's callback on this thread.
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
