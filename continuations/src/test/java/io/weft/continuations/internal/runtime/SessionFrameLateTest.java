package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.testing.ForwardingTransport;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.spi.HeapExhaustion;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What a session's frame does when it comes late: its thread started (or its pacing wait ended)
 * after the session was cancelled, or after its run gave up on it and returned. It does not
 * connect (before, it connected and ran its task during whatever ran next, the connection closed
 * only once open); and a heap error it meets after its run left it behind is not reported, so it
 * aborts no run under way then (before, it aborted them all: the next run of the runner, a test's
 * after-run).
 */
class SessionFrameLateTest {
  private static final SessionCancelledException MADE_AHEAD = new SessionCancelledException("made ahead");

  /** Real loopback connections, counted. */
  private static final class CountingConnector implements Connector {
    final SocketConnector sockets = new SocketConnector();
    final AtomicInteger connects = new AtomicInteger();

    @Override
    public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
      connects.incrementAndGet();
      return sockets.connect(remote, timeout);
    }

    @Override
    public void close() {
      sockets.close();
    }
  }

  /** Answers "ran". */
  public static final class Ran implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) {
      return "ran";
    }
  }

  @Test
  void aSessionCancelledBeforeItsFrameCameToTheConnectDoesNotConnect() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); CountingConnector connector = new CountingConnector()) {
      SessionContext c = new SessionContext(3, connector, tcp.address(), Timeout.NONE, new Ran());
      c.cancel();
      new SessionFrame(c).run();
      assertEquals(0, connector.connects.get(), "connected after its cancel");
      assertTrue(c.isCancelled());
      SessionCancelledException why = assertInstanceOf(SessionCancelledException.class, c.failure());
      assertEquals("session 3 cancelled before it connected", why.getMessage());
    }
  }

  @Test
  void aSessionItsRunLeftBehindBeforeItsFrameCameToTheConnectDoesNotConnectAndKeepsItsOutcome()
      throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); CountingConnector connector = new CountingConnector()) {
      SessionContext c = new SessionContext(0, connector, tcp.address(), Timeout.NONE, new Ran());
      // Handed to its thread (THREADS marks it so as it starts the thread), then given up on.
      c.started();
      c.leftBehind("left behind: test", MADE_AHEAD);
      Throwable outcome = c.failure();
      new SessionFrame(c).run();
      assertEquals(0, connector.connects.get(), "connected after its run left it behind");
      assertSame(outcome, c.failure());
      assertEquals("left behind: test", outcome.getMessage());
    }
  }

  /** Waits to be let go, then meets the heap's end. */
  public static final class LateHeapEnd implements SessionTask<String> {
    static volatile CountDownLatch inTask;
    static volatile CountDownLatch letGo;

    @Override
    public String run(Transport transport, int index) throws IOException {
      inTask.countDown();
      try {
        letGo.await();
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
      throw new OutOfMemoryError("Java heap space");
    }
  }

  @Test
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aHeapErrorASessionMeetsAfterItsRunLeftItBehindAbortsNoRunUnderWayThen() throws Exception {
    LateHeapEnd.inTask = new CountDownLatch(1);
    LateHeapEnd.letGo = new CountDownLatch(1);
    try (EchoServer tcp = EchoServer.tcp(); CountingConnector connector = new CountingConnector()) {
      SessionContext c = new SessionContext(0, connector, tcp.address(), Timeout.NONE, new LateHeapEnd());
      Thread session = new Thread(new SessionFrame(c), "late-session");
      session.start();
      LateHeapEnd.inTask.await();
      // Its run gave up on it and returned; a later run is under way.
      c.leftBehind("left behind: test", MADE_AHEAD);
      List<String> told = new CopyOnWriteArrayList<>();
      try (HeapExhaustion.Watch later = HeapExhaustion.watch(told::add)) {
        LateHeapEnd.letGo.countDown();
        session.join();
        assertEquals(List.of(), told, "a session left behind aborted a later run");
      }
      assertEquals("left behind: test", c.failure().getMessage());
    }
  }

  /**
   * An {@link OutOfMemoryError} of the heap's kind whose report is slow: the first look at its
   * message (the report's, {@code HeapExhaustion.isHeapExhausted}) waits until the test lets it
   * go, as a thread stopped there by a full collection would. Whatever the code looks at before it
   * reports (whether its session was left behind, whether its scheduler stops) it has looked at by
   * then. So the two cases below show that the report is stamped and reaches only the watches
   * begun by its stamp; they do not show that the stamp comes before the look (a stamp taken after
   * the look, just before the report, passes them too: the stop they make comes after both). That
   * order is {@link #aSessionsHeapReportIsStampedWhenItsErrorIsCaughtNotWhenItLooks}'s for the
   * session's catch; {@code Scheduler.reportHeap}'s stamp and look are two volatile reads in a
   * row, with no call between them where a test could stop the thread, so there it is read in the
   * code. What a stamped report reaches is {@code StampedReportTest}'s (transport-api).
   */
  static final class SlowToReport extends OutOfMemoryError {
    private static final long serialVersionUID = 1L;
    final transient CountDownLatch reporting = new CountDownLatch(1);
    final transient CountDownLatch letGo = new CountDownLatch(1);

    SlowToReport() {
      super("Java heap space");
    }

    @Override
    public String getMessage() {
      if (reporting.getCount() > 0) {
        reporting.countDown();
        ForwardingTransport.awaitUninterruptibly(letGo);
      }
      return super.getMessage();
    }
  }

  /** Throws the error it is given. */
  public static final class Throws implements SessionTask<String> {
    static volatile Error error;

    @Override
    public String run(Transport transport, int index) {
      throw error;
    }
  }

  /**
   * Review s14 point 5: the look "left behind?" and the report are two steps. A session meets the
   * heap's end while its run is under way, looks (not left behind), and is stopped before its
   * report is delivered; meanwhile its run leaves it behind and returns, and a later run begins.
   * The report, when it comes, reaches the run that was watching when the error was met, never the
   * later one. Before, it aborted the later run (the look said "not left behind").
   */
  @Test
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aHeapErrorWhoseReportComesAfterItsRunLeftItBehindAbortsOnlyTheRunsWatchingWhenItWasMet() throws Exception {
    SlowToReport error = new SlowToReport();
    Throws.error = error;
    List<String> toldEarlier = new CopyOnWriteArrayList<>();
    List<String> toldLater = new CopyOnWriteArrayList<>();
    try (EchoServer tcp = EchoServer.tcp(); CountingConnector connector = new CountingConnector();
         HeapExhaustion.Watch earlier = HeapExhaustion.watch(toldEarlier::add)) {
      SessionContext c = new SessionContext(0, connector, tcp.address(), Timeout.NONE, new Throws());
      c.started();
      Thread session = new Thread(new SessionFrame(c), "slow-report");
      session.start();
      error.reporting.await();
      // Its run gave up on it and returned; a later run began.
      c.leftBehind("left behind: test", MADE_AHEAD);
      try (HeapExhaustion.Watch later = HeapExhaustion.watch(toldLater::add)) {
        error.letGo.countDown();
        session.join();
        assertEquals(List.of(), toldLater, "a report that came after its session was left behind aborted a later run");
      }
      // The run watching when the error was met heard it: the report was made, and reached it.
      assertEquals(1, toldEarlier.size(), toldEarlier.toString());
      assertTrue(toldEarlier.get(0).contains("met by a session on thread slow-report"), toldEarlier.get(0));
      assertSame(error, c.failure());
    }
  }

  /**
   * An {@link OutOfMemoryError} of the heap's kind that stops its thread at the first look at its
   * cause: in SessionFrame's catch that look ({@code unwrapped}) comes after the stamp and before
   * the look whether the session was left behind, so the test can begin a watch between them.
   */
  static final class SlowToUnwrap extends OutOfMemoryError {
    private static final long serialVersionUID = 1L;
    final transient CountDownLatch unwrapping = new CountDownLatch(1);
    final transient CountDownLatch letGo = new CountDownLatch(1);

    SlowToUnwrap() {
      super("Java heap space");
    }

    @Override
    public Throwable getCause() {
      if (unwrapping.getCount() > 0) {
        unwrapping.countDown();
        ForwardingTransport.awaitUninterruptibly(letGo);
      }
      return super.getCause();
    }
  }

  /**
   * Review hostile3-s15 nit 7: the stamp is taken as the error is caught, before the session
   * looks whether it is still its run's business, not just before the report. The session's
   * thread is stopped after its catch began and before that look (in the unwrapping of its
   * failure); a watch begins then, a run begun after the error was met; then the session goes on,
   * looks (not left behind: its run is still under way) and reports. The report reaches the watch
   * that was there when the error was met, and not the later one. A stamp taken after the look
   * (the mutant the review named), or anywhere after the unwrapping, reaches the later watch too.
   */
  @Test
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aSessionsHeapReportIsStampedWhenItsErrorIsCaughtNotWhenItLooks() throws Exception {
    SlowToUnwrap error = new SlowToUnwrap();
    Throws.error = error;
    List<String> toldEarlier = new CopyOnWriteArrayList<>();
    List<String> toldLater = new CopyOnWriteArrayList<>();
    try (EchoServer tcp = EchoServer.tcp(); CountingConnector connector = new CountingConnector();
         HeapExhaustion.Watch earlier = HeapExhaustion.watch(toldEarlier::add)) {
      SessionContext c = new SessionContext(0, connector, tcp.address(), Timeout.NONE, new Throws());
      c.started();
      Thread session = new Thread(new SessionFrame(c), "stamped-when-caught");
      session.start();
      error.unwrapping.await();
      try (HeapExhaustion.Watch later = HeapExhaustion.watch(toldLater::add)) {
        error.letGo.countDown();
        session.join();
        assertEquals(List.of(), toldLater, "a watch begun after the error was caught heard its report");
      }
      assertEquals(1, toldEarlier.size(), toldEarlier.toString());
      assertTrue(toldEarlier.get(0).contains("met by a session on thread stamped-when-caught"), toldEarlier.get(0));
      assertSame(error, c.failure());
    }
  }

  /**
   * As above, for a scheduler's report (a fiber's end, a worker's escape, an admission): it looks
   * whether the scheduler is stopping (its run over), then reports. A run that began after the
   * scheduler stopped does not hear it.
   */
  @Test
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aSchedulersHeapReportThatComesAfterItsRunStoppedAbortsNoLaterRun() throws Exception {
    SlowToReport error = new SlowToReport();
    List<String> toldEarlier = new CopyOnWriteArrayList<>();
    List<String> toldLater = new CopyOnWriteArrayList<>();
    Scheduler scheduler = new Scheduler(1, 0, "slow-report-test");
    boolean shutDown = false;
    try (HeapExhaustion.Watch earlier = HeapExhaustion.watch(toldEarlier::add)) {
      boolean[] heap = new boolean[1];
      Thread reporter = new Thread(() -> heap[0] = scheduler.reportHeap(error, "a test's scheduler thread"),
          "slow-scheduler-report");
      reporter.start();
      error.reporting.await();
      // Its run ended (the scheduler shut down); a later run began.
      scheduler.shutdown(10_000);
      shutDown = true;
      try (HeapExhaustion.Watch later = HeapExhaustion.watch(toldLater::add)) {
        error.letGo.countDown();
        reporter.join();
        assertEquals(List.of(), toldLater, "a scheduler's late report aborted a run begun after its run stopped");
      }
      assertTrue(heap[0], "the heap's kind of error");
      assertEquals(1, toldEarlier.size(), toldEarlier.toString());
    } finally {
      if (!shutDown) {
        scheduler.shutdown(10_000);
      }
    }
  }

  /**
   * Review s14 point 11: a session cancelled before it connects, when the heap has no room for its
   * own exception, is cancelled with the one made ahead (by its run), never with the
   * {@code OutOfMemoryError}, which it did not meet (errors.md: the FAILED session is the one that
   * met the error); so is a fiber cancelled before its first slice, and so is a cancelled fiber's
   * wait as the cancel wakes it. In a child JVM whose heap is full ({@link NoRoomToCancelRun}).
   */
  @Test
  void aSessionCancelledBeforeItConnectsWithNoRoomForItsExceptionGetsTheOneMadeAheadNotTheError(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    io.weft.testsupport.ChildJvm.Result child = io.weft.testsupport.ChildJvm.run(dir,
        java.time.Duration.ofSeconds(120), List.of("-Xmx32m", "-XX:+UseSerialGC",
            "-Dio.weft.transport.gcTimePercent=0", "-Dio.weft.transport.heapFullAfterCollectionPercent=0"),
        NoRoomToCancelRun.class.getName());
    String all = child.toString();
    assertEquals(0, child.exit(), all);
    assertTrue(child.out().contains("\nfilled: true"), "the child's heap had no room for the exception: " + all);
    assertTrue(child.out().contains("connects: 0"), all);
    assertTrue(child.out().contains("cancelled: true"), all);
    assertTrue(child.out().contains("\nfailure: made ahead by its run"), all);
    // A fiber cancelled before its first slice (CONTINUATIONS), likewise.
    assertTrue(child.out().contains("fiber filled: true"), all);
    assertTrue(child.out().contains("fiber failure: made ahead by its run"), all);
    // A cancelled fiber's wait, woken by the cancel, throws the one made ahead too (before, the
    // error, which its frame then reported as the heap's end, its words costing full collections).
    assertTrue(child.out().contains("woken filled: true"), all);
    // The words as errors.md gives them, written out here: built from the constant the child uses,
    // this assertion could not fail whatever the constant said (review-heap6b-s17, point 3).
    assertEquals("woken failure: io.weft.continuations.spi.SessionCancelledException: cancelled (the heap had no room"
        + " then for an exception of its own; the sessions cancelled so share this one)",
        child.out().lines().filter(l -> l.startsWith("woken failure: ")).findFirst().orElse("(none)"), all);
    assertFalse(child.out().contains("OutOfMemoryError"), all);
    assertFalse(child.out().contains("Java heap space"), all);
  }
}
