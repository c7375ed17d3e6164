package io.weft.perf.callback;

import io.weft.perf.internal.ExchangeLatency;
import io.weft.transport.ProtocolViolationException;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.future.ConnectFuture;
import org.apache.mina.core.service.IoConnector;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.AttributeKey;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.socket.nio.NioSocketConnector;
import org.apache.mina.transport.vmpipe.VmPipeConnector;

/**
 * The line tester's protocol written by hand as MINA callbacks: the async-by-hand baseline
 * that Weft's CONTINUATIONS mode is measured against. Each session sends
 * {@code "weft <session> <i>\r\n"}, reads the echoed line, checks it, and after
 * {@code transactions} exchanges closes; its whole state is one small object and no thread
 * ever waits for it.
 *
 * <p>Lines are framed by hand (bytes up to LF, a CR before it dropped) rather than with a codec
 * filter: the baseline should be as lean as hand-written code gets.
 *
 * <p>Lifecycle: create with {@link #overTcp} or {@link #overPipe}, call {@link #run} any number
 * of times (one at a time), then {@link #close()} from a thread that is not MINA's.
 */
public final class CallbackTesterClient implements AutoCloseable {
  /** Longest reply line accepted, in bytes without the terminator. */
  public static final int LINE_LIMIT = 1024;

  private static final AttributeKey STATE = new AttributeKey(CallbackTesterClient.class, "state");

  private final IoConnector connector;

  private CallbackTesterClient(IoConnector connector) {
    this.connector = connector;
    connector.setHandler(new TesterHandler());
  }

  /** A client over loopback TCP with {@code ioProcessors} MINA I/O threads. */
  public static CallbackTesterClient overTcp(int ioProcessors) {
    if (ioProcessors < 1) {
      throw new IllegalArgumentException("ioProcessors < 1: " + ioProcessors);
    }
    NioSocketConnector connector = new NioSocketConnector(ioProcessors);
    connector.getSessionConfig().setTcpNoDelay(true);
    connector.setConnectTimeoutMillis(30_000L);
    return new CallbackTesterClient(connector);
  }

  /** A client over MINA's in-VM pipe. */
  public static CallbackTesterClient overPipe() {
    return new CallbackTesterClient(new VmPipeConnector());
  }

  /**
   * Runs {@code sessions} concurrent sessions of {@code transactions} exchanges each, session
   * {@code i} against {@code servers.get(i % servers.size())}, and returns when all have ended
   * or {@code timeout} has passed. At most {@code connectsInFlight} connects are pending at
   * once, so a burst of connects does not overflow the server's accept backlog. Each exchange's
   * latency (write to checked reply, nanoseconds) goes to {@code latency}.
   */
  public Result run(List<? extends SocketAddress> servers, int sessions, int transactions,
      ExchangeLatency latency, long timeout, TimeUnit unit, int connectsInFlight)
      throws InterruptedException {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("servers is empty");
    }
    if (sessions < 0) {
      throw new IllegalArgumentException("sessions < 0: " + sessions);
    }
    if (transactions < 1) {
      throw new IllegalArgumentException("transactions < 1: " + transactions);
    }
    if (connectsInFlight < 1) {
      throw new IllegalArgumentException("connectsInFlight < 1: " + connectsInFlight);
    }
    Run run = new Run(sessions, transactions, latency, connectsInFlight);
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    long start = System.nanoTime();
    for (int i = 0; i < sessions; i++) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || !run.connectPermits.tryAcquire(left, TimeUnit.NANOSECONDS)) {
        run.notStarted(sessions - i, "timed out starting sessions");
        break;
      }
      SessionState state = new SessionState(run, i);
      ConnectFuture future = connector.connect(servers.get(i % servers.size()),
          (session, f) -> session.setAttribute(STATE, state));
      future.addListener(f -> {
        ConnectFuture connect = (ConnectFuture) f;
        if (!connect.isConnected()) {
          run.connectPermits.release();
          Throwable cause = connect.getException();
          run.ended(false, "connect failed: " + (cause == null ? "cancelled" : cause));
        }
      });
    }
    boolean allEnded = run.ended.await(Math.max(0L, deadline - System.nanoTime()),
        TimeUnit.NANOSECONDS);
    long wall = System.nanoTime() - start;
    if (!allEnded) {
      for (IoSession session : connector.getManagedSessions().values()) {
        session.closeNow();
      }
    }
    return run.result(wall, allEnded);
  }

  @Override
  public void close() {
    connector.dispose(true);
  }

  /** What one {@link #run} did. */
  public static final class Result {
    public final int sessions;
    public final int completed;
    public final int failed;
    /** The first failure, or null. */
    public final String firstFailure;
    public final long wallNanos;
    /** False when the run timed out with sessions still going (they were closed). */
    public final boolean allEnded;

    Result(int sessions, int completed, int failed, String firstFailure, long wallNanos,
        boolean allEnded) {
      this.sessions = sessions;
      this.completed = completed;
      this.failed = failed;
      this.firstFailure = firstFailure;
      this.wallNanos = wallNanos;
      this.allEnded = allEnded;
    }

    @Override
    public String toString() {
      return "Result{sessions=" + sessions + ", completed=" + completed + ", failed=" + failed
          + ", wallMs=" + wallNanos / 1_000_000 + (allEnded ? "" : ", TIMED OUT")
          + (firstFailure == null ? "" : ", firstFailure=" + firstFailure) + "}";
    }
  }

  /** One run's shared counters. */
  private static final class Run {
    final int sessions;
    final int transactions;
    final ExchangeLatency latency;
    final Semaphore connectPermits;
    final CountDownLatch ended;
    final AtomicInteger completed = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();
    final AtomicReference<String> firstFailure = new AtomicReference<>();

    Run(int sessions, int transactions, ExchangeLatency latency, int connectsInFlight) {
      this.sessions = sessions;
      this.transactions = transactions;
      this.latency = latency;
      this.connectPermits = new Semaphore(connectsInFlight);
      this.ended = new CountDownLatch(sessions);
    }

    void ended(boolean ok, String failure) {
      if (ok) {
        completed.incrementAndGet();
      } else {
        failed.incrementAndGet();
        firstFailure.compareAndSet(null, failure);
      }
      ended.countDown();
    }

    void notStarted(int count, String why) {
      for (int i = 0; i < count; i++) {
        ended(false, why);
      }
    }

    Result result(long wallNanos, boolean allEnded) {
      return new Result(sessions, completed.get(), failed.get(), firstFailure.get(), wallNanos,
          allEnded);
    }
  }

  /** One session's whole state: which exchange it is on and the reply bytes so far. */
  private static final class SessionState {
    final Run run;
    final int index;
    final byte[] line = new byte[LINE_LIMIT];
    int lineLength;
    int done;
    byte[] expected;
    long sentAt;
    boolean finished;
    String failure;

    SessionState(Run run, int index) {
      this.run = run;
      this.index = index;
    }
  }

  private static final class TesterHandler extends IoHandlerAdapter {
    @Override
    public void sessionOpened(IoSession session) {
      SessionState state = (SessionState) session.getAttribute(STATE);
      state.run.connectPermits.release();
      sendNext(session, state);
    }

    @Override
    public void messageReceived(IoSession session, Object message) {
      SessionState state = (SessionState) session.getAttribute(STATE);
      IoBuffer in = (IoBuffer) message;
      while (in.hasRemaining()) {
        byte b = in.get();
        if (b != '\n') {
          if (state.lineLength == LINE_LIMIT) {
            fail(session, state, "reply longer than " + LINE_LIMIT + " bytes: "
                + ProtocolViolationException.quote(state.line, 0, state.lineLength));
            return;
          }
          state.line[state.lineLength++] = b;
          continue;
        }
        if (in.hasRemaining()) {
          // An echo never speaks first; taking the line now could race the next exchange.
          fail(session, state, "unrequested bytes after reply "
              + ProtocolViolationException.quote(state.line, 0, state.lineLength));
          return;
        }
        lineEnded(session, state);
      }
    }

    @Override
    public void sessionClosed(IoSession session) {
      SessionState state = (SessionState) session.getAttribute(STATE);
      if (state == null) {
        return;
      }
      if (state.finished) {
        state.run.ended(true, null);
      } else {
        state.run.ended(false, state.failure != null ? state.failure
            : "session " + state.index + ": peer closed after " + state.done + " of "
                + state.run.transactions + " exchanges");
      }
    }

    @Override
    public void exceptionCaught(IoSession session, Throwable cause) {
      SessionState state = (SessionState) session.getAttribute(STATE);
      if (state != null) {
        fail(session, state, cause.toString());
      } else {
        session.closeNow();
      }
    }

    private static void lineEnded(IoSession session, SessionState state) {
      long now = System.nanoTime();
      int length = state.lineLength;
      if (length > 0 && state.line[length - 1] == '\r') {
        length--;
      }
      state.lineLength = 0;
      if (!matches(state.line, length, state.expected)) {
        fail(session, state, "session " + state.index + " expected "
            + ProtocolViolationException.quote(state.expected, 0, state.expected.length)
            + " but got " + ProtocolViolationException.quote(state.line, 0, length));
        return;
      }
      state.run.latency.record(state.sentAt, now);
      if (++state.done == state.run.transactions) {
        state.finished = true;
        session.closeNow();
      } else {
        sendNext(session, state);
      }
    }

    private static void sendNext(IoSession session, SessionState state) {
      byte[] text = ("weft " + state.index + " " + state.done).getBytes(StandardCharsets.US_ASCII);
      IoBuffer out = IoBuffer.allocate(text.length + 2);
      out.put(text).put((byte) '\r').put((byte) '\n').flip();
      state.expected = text;
      // Before the write: on the pipe the reply can arrive inside write().
      state.sentAt = System.nanoTime();
      session.write(out);
    }

    private static boolean matches(byte[] line, int length, byte[] expected) {
      if (length != expected.length) {
        return false;
      }
      for (int i = 0; i < length; i++) {
        if (line[i] != expected[i]) {
          return false;
        }
      }
      return true;
    }

    private static void fail(IoSession session, SessionState state, String why) {
      if (state.failure == null) {
        state.failure = why;
      }
      session.closeNow();
    }
  }
}
