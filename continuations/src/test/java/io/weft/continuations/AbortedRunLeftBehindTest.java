package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.testing.ForwardingTransport;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.socket.SocketConnector;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An aborted run returns once its close wait after the abort has run out, however its sessions'
 * closes behave, and every session it gave up on has an outcome that says so. Here every close
 * blocks (as a socket's close can for tens of seconds in a full heap, each allocation costing
 * full collections, or for good: on JDK 25 a virtual thread's close waiting for a monitor that
 * an unmounted virtual thread holds): the abort's cancel blocks on the reporting session's
 * thread, and the run is cancelled again, while it waits, by a thread of its own. Before, the
 * run's own thread made those cancels itself and blocked in the first close, for as long as the
 * close did (here: until the test let it go, never), and a session left behind had no failure
 * (outcome CANCELLED with none, nothing saying why). A session that never started (the run
 * takes two at a time) is cancelled, not left behind.
 */
class AbortedRunLeftBehindTest {
  private static final long CLOSE_WAIT_MILLIS = 300;

  static List<Mode> modes() {
    List<Mode> modes = new ArrayList<>(List.of(Mode.THREADS));
    if (Runtime.version().feature() >= 21) {
      modes.add(Mode.VIRTUAL_THREADS);
    }
    return modes;
  }

  @ParameterizedTest
  @MethodSource("modes")
  // A watchdog only (the run returns 300 ms after the abort): on the old code it never returns.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void anAbortedRunReturnsAfterItsCloseWaitThoughEveryCloseBlocksAndItsLeftBehindSessionsSaySo(Mode mode)
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    HoldsFirst.reading = new CountDownLatch(1);
    HoldsFirst.release = release;
    try (EchoServer tcp = EchoServer.tcp(); BlockingCloseConnector connector = new BlockingCloseConnector(release);
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .timeout(Timeout.of(60, TimeUnit.SECONDS)).closeWait(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)
             .maxInFlight(2).build()) {
      try {
        RunAbortedException e = assertThrows(RunAbortedException.class, () -> runner.run(HoldsFirst.class, 3));
        assertTrue(e.getMessage().startsWith("the run was aborted: the heap ran out (java.lang.OutOfMemoryError:"
            + " Java heap space, met by a session on thread "), e.getMessage());
        // Session 0's thread is in its own close, session 1's in its task, which ignores cancels:
        // neither ended.
        assertTrue(e.getMessage().endsWith(", and 2 of them had not ended " + CLOSE_WAIT_MILLIS
            + " ms later (the runner's close wait): they were left behind"), e.getMessage());
        // Every close so far blocked: the run returned while they still do.
        assertEquals(0, connector.closesDone.get());
        assertTrue(connector.closesBlocked.get() >= 1, "closes blocked: " + connector.closesBlocked.get());
        RunResult<?> result = e.result();
        assertEquals(3, result.outcomes().size());
        Outcome<?> met = result.outcome(0);
        assertEquals(Outcome.Status.FAILED, met.status(), met.toString());
        assertInstanceOf(OutOfMemoryError.class, met.failure());
        Outcome<?> behind = result.outcome(1);
        assertEquals(Outcome.Status.CANCELLED, behind.status(), behind.toString());
        SessionCancelledException why = assertInstanceOf(SessionCancelledException.class, behind.failure());
        assertTrue(why.getMessage().startsWith("left behind: the run was aborted (the heap ran out)"), why.getMessage());
        // Session 2 never started (two at a time): cancelled, not left behind.
        Outcome<?> unstarted = result.outcome(2);
        assertEquals(Outcome.Status.CANCELLED, unstarted.status(), unstarted.toString());
        assertEquals(null, unstarted.failure());
      } finally {
        release.countDown();
      }
    }
  }

  @ParameterizedTest
  @MethodSource("modes")
  // A watchdog only: the joins below end once the released closes have run.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void theOutcomesOfSessionsLeftBehindAreTheirOwnAndDoNotChangeAfterTheRunReturned(Mode mode) throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    TwoRead.reading = new CountDownLatch(2);
    TwoRead.threads = new Thread[3];
    try (EchoServer tcp = EchoServer.tcp(); BlockingCloseConnector connector = new BlockingCloseConnector(release);
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .timeout(Timeout.of(60, TimeUnit.SECONDS)).closeWait(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)
             .maxInFlight(3).build()) {
      TwoRead.connector = connector;
      RunResult<?> result;
      try {
        RunAbortedException e = assertThrows(RunAbortedException.class, () -> runner.run(TwoRead.class, 3));
        // Session 0's thread is in the abort's cancel, sessions 1 and 2 in their reads.
        assertTrue(e.getMessage().endsWith(", and 3 of them had not ended " + CLOSE_WAIT_MILLIS
            + " ms later (the runner's close wait): they were left behind"), e.getMessage());
        result = e.result();
      } finally {
        release.countDown();
      }
      Outcome<?> one = result.outcome(1);
      Outcome<?> two = result.outcome(2);
      assertEquals(Outcome.Status.CANCELLED, one.status(), one.toString());
      assertEquals(Outcome.Status.CANCELLED, two.status(), two.toString());
      SessionCancelledException oneWhy = assertInstanceOf(SessionCancelledException.class, one.failure());
      SessionCancelledException twoWhy = assertInstanceOf(SessionCancelledException.class, two.failure());
      // The released closes end the abandoned sessions' reads: each then ends its frame, whose
      // own close fails (late, after the run returned).
      TwoRead.threads[1].join();
      TwoRead.threads[2].join();
      assertTrue(connector.closesDone.get() >= 2, "closes done: " + connector.closesDone.get());
      assertEquals(0, oneWhy.getSuppressed().length, "a late close error was added to the run's outcome: "
          + java.util.Arrays.toString(oneWhy.getSuppressed()));
      assertEquals(0, twoWhy.getSuppressed().length, "a late close error was added to the run's outcome: "
          + java.util.Arrays.toString(twoWhy.getSuppressed()));
      assertNotSame(oneWhy, twoWhy, "sessions left behind share one exception");
      assertEquals(Outcome.Status.CANCELLED, result.outcome(1).status());
      assertSame(oneWhy, result.outcome(1).failure());
    }
  }

  @ParameterizedTest
  @MethodSource("modes")
  // A watchdog only; the close wait is a far bound: on the old code the run returns at it, with
  // sessions 1 and 2 left behind, never cancelled.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aCloseThatThrowsDoesNotSpareTheOtherSessionsFromTheAbortsCancels(Mode mode) throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); BlockingCloseConnector connector = new BlockingCloseConnector(null);
         SessionRunner runner = twoReadRunner(mode, connector, tcp, 30)) {
      RunAbortedException e = assertThrows(RunAbortedException.class, () -> runner.run(TwoRead.class, 3));
      assertFalse(e.getMessage().contains("had not ended"), e.getMessage());
      RunResult<?> result = e.result();
      assertInstanceOf(OutOfMemoryError.class, result.outcome(0).failure());
      assertCancelledNotLeftBehind(result);
    }
  }

  /** A run of {@link TwoRead} over {@code connector}, three at once, with this close wait (a far bound). */
  private static SessionRunner twoReadRunner(Mode mode, BlockingCloseConnector connector, EchoServer tcp,
      long closeWaitSeconds) {
    TwoRead.reading = new CountDownLatch(2);
    TwoRead.threads = new Thread[3];
    TwoRead.connector = connector;
    return SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
        .timeout(Timeout.of(120, TimeUnit.SECONDS)).closeWait(closeWaitSeconds, TimeUnit.SECONDS)
        .maxInFlight(3).build();
  }

  /** Sessions 1 and 2 were cancelled by the abort's cancels, not left behind. */
  private static void assertCancelledNotLeftBehind(RunResult<?> result) {
    for (int i = 1; i <= 2; i++) {
      Outcome<?> o = result.outcome(i);
      assertEquals(Outcome.Status.CANCELLED, o.status(), o.toString());
      SessionCancelledException why = assertInstanceOf(SessionCancelledException.class, o.failure());
      assertFalse(why.getMessage().startsWith("left behind"), why.getMessage());
    }
  }

  /**
   * A cancel's close of session 1's transport closes its socket and never returns (until the test
   * ends): the thread that made it is stalled for good. The other sessions are cancelled all the
   * same: the JVM's canceller has a spare that takes the work over when a pass stalls, and skips
   * the session whose cancel is under way. Every session ends (1 and 2 cancelled, their sockets
   * closed), so the run returns with none left behind, long before its close wait. On the old code
   * the abort's cancel ran on session 0's thread and stalled there, and so did the re-cancel
   * thread, both in session 1's close: session 0 never ended and session 2 was never cancelled
   * ("2 of them had not ended 60000 ms later"). Once the close returns, the stalled thread ends
   * (a spare was made after the takeover): the JVM's two idle cancellers, the active one and its
   * spare, are all that is left.
   */
  @ParameterizedTest
  @MethodSource("modes")
  // A watchdog only; the close wait is a far bound.
  @org.junit.jupiter.api.Timeout(value = 180, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aCloseThatNeverReturnsStopsNoCancelOfTheOtherSessionsAndNoCancellerOutlivesIt(Mode mode) throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); BlockingCloseConnector connector = new BlockingCloseConnector(null);
         SessionRunner runner = twoReadRunner(mode, connector, tcp, 60)) {
      TwoRead.hang = true;
      try {
        RunAbortedException e = assertThrows(RunAbortedException.class, () -> runner.run(TwoRead.class, 3));
        assertFalse(e.getMessage().contains("had not ended"), e.getMessage());
        // A cancel is still in session 1's close: its thread stalled, and did not stop the others.
        assertEquals(1, connector.hanging.get(), "closes hanging");
        RunResult<?> result = e.result();
        assertInstanceOf(OutOfMemoryError.class, result.outcome(0).failure());
        assertCancelledNotLeftBehind(result);
      } finally {
        TwoRead.hang = false;
        connector.unhang.countDown();
      }
      // The stalled canceller comes back and ends (or is the spare): two idle cancellers are left.
      for (;;) {
        List<Thread> busy = new ArrayList<>();
        int all = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
          if (t.isAlive() && t.getName().equals(AbortCancels.THREAD_NAME)) {
            all++;
            if (!AbortCancels.isIdle(t)) {
              busy.add(t);
            }
          }
        }
        if (busy.isEmpty()) {
          assertEquals(2, all, "canceller threads left (the active one and its spare)");
          break;
        }
        busy.get(0).join(100);
      }
      assertEquals(0, connector.hanging.get());
    }
  }

  /**
   * CONTINUATIONS (four workers, the blocking loopback connector allowed): the aborted run's
   * cancels go through the scheduler's. The first close the canceller makes (session 0's, the
   * first of the pass) never returns, and session 0's own close of it runs out of heap, so the
   * session keeps the transport for the cancels; the spare takes over, skips session 0, whose
   * cancel is still in its close, and cancels sessions 1 and 2, whose reads end: every fiber ends,
   * none is left behind. With no takeover (mutant) sessions 1 and 2 are never cancelled and are left behind at
   * the close wait; so they are with no skip (mutant: {@code SessionContext.cancel} closes again
   * while a cancel's close is under way), since every canceller's close of session 0's transport
   * hangs: each thread that takes over stalls in it in turn, until no thread is left to take over.
   */
  @org.junit.jupiter.api.Test
  // A watchdog only; the close wait is a far bound.
  @org.junit.jupiter.api.Timeout(value = 180, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void inContinuationsACloseThatNeverReturnsStopsNoCancelOfTheOtherFibers() throws Exception {
    io.weft.continuations.testing.AbortSignals.reading = new CountDownLatch(2);
    try (EchoServer tcp = EchoServer.tcp(); BlockingCloseConnector connector = new BlockingCloseConnector(null);
         SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(4)).connector(connector)
             .address(tcp.address()).allowBlockingConnector(true).instrument(SessionRunnerTest.CLIENT)
             .timeout(Timeout.of(120, TimeUnit.SECONDS)).closeWait(60, TimeUnit.SECONDS).build()) {
      connector.hangFirstCancel = true;
      try {
        RunAbortedException e = assertThrows(RunAbortedException.class,
            () -> runner.run(io.weft.continuations.testclient.AbortWhenOthersReadTask.class, 3));
        assertFalse(e.getMessage().contains("had not ended"), e.getMessage());
        assertEquals(1, connector.hanging.get(), "closes hanging");
        RunResult<?> result = e.result();
        assertInstanceOf(OutOfMemoryError.class, result.outcome(0).failure());
        assertCancelledNotLeftBehind(result);
      } finally {
        connector.unhang.countDown();
      }
    }
  }

  /**
   * Sessions 1 and 2 wait for a line that never comes; session 0, once both are reading, meets
   * the heap's end. Over a connector whose release is null (no close blocks), every close of
   * session 0's transport throws; otherwise sessions 1 and 2's own closes throw once done.
   */
  public static final class TwoRead implements SessionTask<String> {
    static volatile CountDownLatch reading;
    static volatile Thread[] threads;
    static volatile BlockingCloseConnector connector;
    /** Session 1's transport hangs in every close by another thread (see BlockingCloseConnector). */
    static volatile boolean hang;

    @Override
    public String run(Transport transport, int index) throws IOException {
      threads[index] = Thread.currentThread();
      if (index > 0) {
        if (hang && index == 1) {
          connector.hangForOthers.add(Thread.currentThread());
        }
        if (connector.release != null) {
          connector.failOwnClose.add(Thread.currentThread());
        }
        reading.countDown();
        return transport.readLineStrict(64);
      }
      if (connector.release == null && !hang) {
        connector.refuseEveryClose.add(Thread.currentThread());
      }
      try {
        reading.await();
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
      throw new OutOfMemoryError("Java heap space");
    }
  }

  /**
   * Session 1 waits for the test to let it go, deaf to cancels (neither a closed transport nor an
   * interrupt ends its wait: a virtual thread's socket read would end at the cancels' interrupt);
   * session 0, once session 1 is connected, meets the heap's end (an {@code OutOfMemoryError} of
   * the heap's kind, thrown, which the session frame reports as it would a real one).
   */
  public static final class HoldsFirst implements SessionTask<String> {
    static volatile CountDownLatch reading;
    static volatile CountDownLatch release;

    @Override
    public String run(Transport transport, int index) throws IOException {
      if (index == 1) {
        reading.countDown();
        ForwardingTransport.awaitUninterruptibly(release);
        return "let go";
      }
      try {
        reading.await();
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
      throw new OutOfMemoryError("Java heap space");
    }
  }

  /**
   * Real loopback TCP transports whose every close blocks until {@code release} (unless null),
   * then closes; then, for a transport opened by a thread in {@link #failOwnClose}, that
   * thread's own close throws. Every close of a transport opened by a thread in
   * {@link #refuseEveryClose} throws, closing nothing.
   */
  static final class BlockingCloseConnector implements Connector {
    final SocketConnector sockets = new SocketConnector();
    final CountDownLatch release;
    final AtomicInteger closesBlocked = new AtomicInteger();
    final AtomicInteger closesDone = new AtomicInteger();
    final Set<Thread> failOwnClose = ConcurrentHashMap.newKeySet();
    final Set<Thread> refuseEveryClose = ConcurrentHashMap.newKeySet();
    /**
     * A close of a transport opened by one of these, made by another thread (a cancel), closes the
     * socket and then does not return until {@link #unhang}.
     */
    final Set<Thread> hangForOthers = ConcurrentHashMap.newKeySet();
    final CountDownLatch unhang = new CountDownLatch(1);
    /** Closes hanging now (see {@link #hangForOthers}, {@link #hangFirstCancel}). */
    final AtomicInteger hanging = new AtomicInteger();
    /**
     * Set: the first close made by the JVM's abort canceller closes the socket and then does not
     * return until {@link #unhang}, and so does every later close of that transport by a canceller
     * (a pass that did not skip it would stall there too); every other close not made by it waits
     * until that one has begun (so that the hang is a cancel's, never a session's own close), and
     * the session's own close of that transport then fails for want of heap (so that the session
     * keeps it, and every later pass meets it still open).
     */
    volatile boolean hangFirstCancel;
    /** The transport whose close hangs for every canceller (see {@link #hangFirstCancel}). */
    volatile Transport hungOne;
    final AtomicInteger cancelCloses = new AtomicInteger();
    final CountDownLatch hangBegun = new CountDownLatch(1);

    BlockingCloseConnector(CountDownLatch release) {
      this.release = release;
    }

    @Override
    public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
      return new BlockingClose(sockets.connect(remote, timeout), this);
    }

    @Override
    public void close() {
      sockets.close();
    }
  }

  private static final class BlockingClose extends ForwardingTransport {
    private final BlockingCloseConnector connector;
    /** The session's thread: it connects. */
    private final Thread owner = Thread.currentThread();

    BlockingClose(Transport socket, BlockingCloseConnector connector) {
      super(socket);
      this.connector = connector;
    }

    /** Closes the socket, then does not return until the connector's {@code unhang}. */
    private void closeAndHang() {
      socket.close();
      connector.hanging.incrementAndGet();
      connector.hangBegun.countDown();
      try {
        ForwardingTransport.awaitUninterruptibly(connector.unhang);
      } finally {
        connector.hanging.decrementAndGet();
      }
    }

    @Override
    public void close() {
      if (connector.refuseEveryClose.contains(owner)) {
        throw new IllegalStateException("this close always fails");
      }
      if (connector.hangFirstCancel) {
        if (Thread.currentThread().getName().equals(AbortCancels.THREAD_NAME)
            && (connector.cancelCloses.getAndIncrement() == 0 || connector.hungOne == this)) {
          connector.hungOne = this;
          closeAndHang();
          return;
        }
        ForwardingTransport.awaitUninterruptibly(connector.hangBegun);
        if (this == connector.hungOne) {
          // The session's own close of the transport a cancel hangs in runs out of heap, twice
          // (SessionFrame closes again after the report): the session keeps the transport for the
          // cancels to close (SessionContext.closeRanOutOfHeap), so that every later pass comes to
          // it still open, and must skip it.
          throw new OutOfMemoryError("Java heap space");
        }
        socket.close();
        return;
      }
      if (connector.hangForOthers.contains(owner) && Thread.currentThread() != owner) {
        closeAndHang();
        return;
      }
      if (connector.release != null) {
        connector.closesBlocked.incrementAndGet();
        // A cancel interrupts session threads: a close that blocks for good does not mind.
        ForwardingTransport.awaitUninterruptibly(connector.release);
      }
      socket.close();
      connector.closesDone.incrementAndGet();
      if (Thread.currentThread() == owner && connector.failOwnClose.contains(owner)) {
        throw new IllegalStateException("the session's own close failed late");
      }
    }
  }
}
