package io.weft.testsupport;

import io.weft.testsupport.FaultyPeer.Fault;
import java.io.Closeable;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.vmpipe.VmPipeAcceptor;
import org.apache.mina.transport.vmpipe.VmPipeAddress;

/**
 * {@link FaultyPeer}'s faults over MINA's in-VM pipe, for the transports' pipe variants. Only the
 * faults a pipe can have: it has no reset and no half-close (its close is the whole
 * connection's, which the reader sees as end of stream, so {@link Fault#HALF_CLOSE} echoes and
 * closes), and a write runs the reader's handler on the writer's thread, so
 * {@link Fault#ENDLESS_LINE} sends a line far longer than any limit ({@value #LONG_WITHOUT_END}
 * bytes without a line end) instead of sending forever.
 *
 * <p>Lifecycle: {@link #start} binds a fresh {@link VmPipeAddress}; {@link #close()} closes every
 * session, unbinds and disposes the acceptor and the drip timer, waiting for their threads.
 */
public final class FaultyPipePeer implements Closeable {
  /** What {@link Fault#ENDLESS_LINE} sends on a pipe: no line end in 1 MiB. */
  public static final int LONG_WITHOUT_END = 1 << 20;
  private static final AtomicInteger PORTS = new AtomicInteger(40_000);

  private final Fault fault;
  private final byte[] canned;
  private final VmPipeAddress address = new VmPipeAddress(PORTS.incrementAndGet());
  private final VmPipeAcceptor acceptor = new VmPipeAcceptor();
  private final ScheduledExecutorService drips;
  private final Map<IoSession, StringBuilder> lines = new ConcurrentHashMap<>();
  private final AtomicInteger requests = new AtomicInteger();

  private FaultyPipePeer(Fault fault, int bytes) throws IOException {
    this.fault = Objects.requireNonNull(fault, "fault");
    if (fault == Fault.RESET_MID_LINE || fault == Fault.KILLED_MID_RUN) {
      throw new IllegalArgumentException(fault + " does not exist on a pipe");
    }
    this.canned = fault == Fault.BIG_REPLY ? bigReply(bytes) : fault == Fault.LONG_LINE ? longLine(bytes)
        : fault == Fault.ENDLESS_LINE ? filled(LONG_WITHOUT_END, (byte) 'x') : null;
    this.drips = fault == Fault.DRIP ? Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "faulty-pipe-peer-drip");
      t.setDaemon(true);
      return t;
    }) : null;
    acceptor.setHandler(new Handler());
    acceptor.bind(address);
  }

  /**
   * Starts a pipe peer playing {@code fault}; {@code bytes} is the reply or line size of
   * {@link Fault#BIG_REPLY} and {@link Fault#LONG_LINE}, ignored otherwise.
   */
  public static FaultyPipePeer start(Fault fault, int bytes) throws IOException {
    return new FaultyPipePeer(fault, bytes);
  }

  public VmPipeAddress address() {
    return address;
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

  @Override
  public void close() {
    for (IoSession s : acceptor.getManagedSessions().values()) {
      s.closeNow();
    }
    acceptor.unbind();
    acceptor.dispose(true);
    if (drips != null) {
      drips.shutdownNow();
      try {
        drips.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static byte[] bigReply(int n) {
    byte[] header = ("$" + n + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] reply = Arrays.copyOf(header, header.length + n);
    for (int i = 0; i < n; i++) {
      reply[header.length + i] = FaultyPeer.replyByte(i);
    }
    return reply;
  }

  private static byte[] longLine(int n) {
    byte[] line = filled(n + 2, (byte) 'a');
    line[n] = '\r';
    line[n + 1] = '\n';
    return line;
  }

  private static byte[] filled(int n, byte b) {
    byte[] bytes = new byte[n];
    Arrays.fill(bytes, b);
    return bytes;
  }

  private final class Handler extends IoHandlerAdapter {
    @Override
    public void sessionCreated(IoSession session) {
      lines.put(session, new StringBuilder());
    }

    @Override
    public void sessionClosed(IoSession session) {
      lines.remove(session);
    }

    @Override
    public void messageReceived(IoSession session, Object message) {
      IoBuffer in = (IoBuffer) message;
      StringBuilder line = lines.get(session);
      if (line == null) {
        return;
      }
      while (in.hasRemaining()) {
        char c = (char) (in.get() & 0xff);
        line.append(c);
        if (c == '\n') {
          String got = line.toString();
          line.setLength(0);
          boolean first = session.getAttribute("requested") == null;
          session.setAttribute("requested", Boolean.TRUE);
          if (first) {
            synchronized (requests) {
              requests.incrementAndGet();
              requests.notifyAll();
            }
            onRequest(session, got);
          } else if (fault == Fault.ECHO) {
            send(session, got.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
          }
        }
      }
    }

    @Override
    public void exceptionCaught(IoSession session, Throwable cause) {
      session.closeNow();
    }

    private void onRequest(IoSession session, String line) {
      byte[] echo = line.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
      switch (fault) {
        case ECHO:
          send(session, echo);
          break;
        case STALL:
          break;
        case GARBAGE:
          byte[] garbage = new byte[202];
          for (int i = 0; i < 200; i++) {
            garbage[i] = (byte) (0x80 | (i * 7));
          }
          garbage[200] = '\r';
          garbage[201] = '\n';
          send(session, garbage);
          break;
        case HALF_CLOSE:
          send(session, echo);
          session.closeOnFlush();
          break;
        case DRIP:
          AtomicInteger sent = new AtomicInteger();
          drips.scheduleAtFixedRate(() -> {
            if (session.isClosing() || !session.isConnected()) {
              throw new IllegalStateException("closed: stop dripping");
            }
            send(session, new byte[] {sent.incrementAndGet() > FaultyPeer.DRIP_LINE_BYTES ? (byte) '\n' : (byte) '.'});
          }, 0, FaultyPeer.DRIP_INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
          break;
        case ENDLESS_LINE:
        case BIG_REPLY:
        case LONG_LINE:
          send(session, canned);
          break;
        default:
          throw new AssertionError(fault);
      }
    }

    private void send(IoSession session, byte[] bytes) {
      session.write(IoBuffer.wrap(bytes));
    }
  }
}
