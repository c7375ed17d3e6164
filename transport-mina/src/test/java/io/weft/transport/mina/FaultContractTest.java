package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.FaultCase;
import io.weft.testsupport.FaultyPeer;
import io.weft.testsupport.FaultyPipePeer;
import io.weft.testsupport.ProcessProbe;
import io.weft.testsupport.faults.FaultSession;
import io.weft.transport.Connector;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.netty.SuspendingNettyConnector;
import io.weft.transport.netty.NettyConnector;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fault contract ({@link FaultCase}), for every transport in every runner mode it can run
 * in: SocketTransport, MinaTransport (TCP), SuspendingMinaTransport (TCP), NettyTransport and
 * SuspendingNettyTransport in SYNC, THREADS and VIRTUAL_THREADS (JDK 21+), and the two continuing
 * transports in continuations(1) and (2), SuspendingMinaTransport over TCP and over the in-VM
 * pipe (the cases a pipe can have: no reset, no port to refuse or kill; see
 * {@link FaultyPipePeer}). The Netty transports run here, beside the others, so that one
 * catalogue holds every transport to the same outcomes and messages.
 *
 * <p>For each transport and mode, one run of {@link SessionRunner} plays every case at once:
 * session {@code i} talks to the peer of the {@code i}-th entry of an interleaved schedule, up
 * to {@link #IN_FLIGHT} at a time, with the control sessions (a normal echo) among them. The
 * tests then check each case's outcomes: the exact exception type and the kind of message; that
 * each session ended by the timer it should have (its message names it); that the control
 * sessions passed; that {@code run()} returned with no socket of the run still open; and, once
 * the connector and peers are closed, that no thread, descriptor or live heap was left.
 *
 * <p>Time: no wall-clock upper bound. A wait that does not end at its own timeout ends at the
 * 10 s operation timeout, as a {@link io.weft.transport.TransportTimeoutException} naming that
 * timer, which every case's expected type or message refuses; one that never ends is cancelled
 * by the run's budget. Each session records, with {@code System.nanoTime()}, how long its task
 * ran, for the one lower bound: a stall never times out before its timeout.
 *
 * <p>{@code -Dweft.faultContract.transports=SOCKET,MINA_TCP} runs only those transports.
 */
@ParameterizedClass(name = "{0} in {1}")
@MethodSource("transportsAndModes")
class FaultContractTest {
  /** Sessions at once in the concurrent modes. */
  static final int IN_FLIGHT = 256;
  /** The runner's timeout: for the connect and for every case that must not time out. */
  static final long OPERATION_TIMEOUT_MILLIS = 10_000;
  /** STALL's operation timeout. */
  static final long STALL_TIMEOUT_MILLIS = 300;
  /** DRIP's session deadline. */
  static final long DRIP_DEADLINE_MILLIS = 800;
  /** How long one run may take before it is cancelled: far beyond a healthy run's seconds. */
  static final long RUN_BUDGET_SECONDS = Long.getLong("weft.faultContract.budgetSeconds", 90);
  /** Live heap a run may leave behind, after GC: far less than one session's big reply. */
  static final long HEAP_TOLERANCE_BYTES = 8L << 20;

  /** The transports under test, by the connector that opens them. */
  enum Transports {
    SOCKET(SocketConnector::new, false),
    MINA_TCP(MinaConnector::tcp, false),
    SUSPENDING_MINA_TCP(SuspendingMinaConnector::tcp, false),
    NETTY_TCP(NettyConnector::tcp, false),
    SUSPENDING_NETTY_TCP(SuspendingNettyConnector::tcp, false),
    /** The in-VM pipe, in the continuation modes it exists for; see {@link FaultyPipePeer}. */
    SUSPENDING_MINA_PIPE(SuspendingMinaConnector::vmPipe, true);

    final Supplier<Connector> connectors;
    final boolean pipe;

    Transports(Supplier<Connector> connectors, boolean pipe) {
      this.connectors = connectors;
      this.pipe = pipe;
    }

    /**
     * False for the faults a pipe cannot have: no reset, no port to refuse or to kill, and no
     * peer that does not read: MINA's in-VM pipe has no backpressure (a write runs the peer's
     * handler on the writer's thread and is done on return), so a flush there never waits.
     */
    boolean has(FaultCase c) {
      return !pipe || (c != FaultCase.RESET_MID_LINE && c != FaultCase.KILLED_MID_RUN && c != FaultCase.REFUSED
          && c != FaultCase.FLUSH_TO_NON_READER);
    }

    /** Starts the peer of case {@code c} for this transport, or returns null for REFUSED. */
    Peer startPeer(FaultCase c, int sessionsOfCase) throws java.io.IOException {
      if (!pipe) {
        FaultyPeer peer = c.startPeer(sessionsOfCase);
        return peer == null ? null : new Peer(peer, peer.address(), peer::awaitRequests);
      }
      int bytes = c == FaultCase.REPLY_1_MIB ? 1 << 20 : c == FaultCase.REPLY_16_MIB ? 16 << 20 : 1_000_000;
      FaultyPipePeer peer = FaultyPipePeer.start(c.fault(), bytes);
      return new Peer(peer, peer.address(), peer::awaitRequests);
    }
  }

  /** A running peer of either kind. */
  static final class Peer implements java.io.Closeable {
    interface Await {
      boolean awaitRequests(int count, long timeout, TimeUnit unit) throws InterruptedException;
    }

    final java.io.Closeable closeable;
    final SocketAddress address;
    final Await await;

    Peer(java.io.Closeable closeable, SocketAddress address, Await await) {
      this.closeable = closeable;
      this.address = address;
      this.await = await;
    }

    @Override
    public void close() throws java.io.IOException {
      closeable.close();
    }
  }

  static Stream<Arguments> transportsAndModes() {
    boolean virtual = Runtime.version().feature() >= 21;
    List<Arguments> runs = new ArrayList<>();
    String only = System.getProperty("weft.faultContract.transports", "");
    for (Transports t : Transports.values()) {
      if (!only.isEmpty() && !List.of(only.split(",")).contains(t.name())) {
        continue;
      }
      if (t.pipe) {
        runs.add(Arguments.of(t, Mode.continuations(1)));
        runs.add(Arguments.of(t, Mode.continuations(2)));
        continue;
      }
      runs.add(Arguments.of(t, Mode.SYNC));
      runs.add(Arguments.of(t, Mode.THREADS));
      if (virtual) {
        runs.add(Arguments.of(t, Mode.VIRTUAL_THREADS));
      }
      if (t == Transports.SUSPENDING_MINA_TCP || t == Transports.SUSPENDING_NETTY_TCP) {
        runs.add(Arguments.of(t, Mode.continuations(1)));
        runs.add(Arguments.of(t, Mode.continuations(2)));
      }
    }
    return runs.stream();
  }

  @Parameter(0)
  Transports transport;

  @Parameter(1)
  Mode mode;

  /**
   * Marks the test that checks a case. A case whose test is {@link Disabled} is left out of the
   * runs, so that a case waiting for a fix costs nothing (a read that hangs until its timeout,
   * a thousand times over, would).
   */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  @interface Case {
    FaultCase value();
  }

  /** The cases whose tests are enabled. */
  static Set<FaultCase> enabledCases() {
    Set<FaultCase> cases = EnumSet.noneOf(FaultCase.class);
    for (Method m : FaultContractTest.class.getDeclaredMethods()) {
      Case c = m.getAnnotation(Case.class);
      if (c != null && !m.isAnnotationPresent(Disabled.class)) {
        cases.add(c.value());
      }
    }
    return cases;
  }

  /** What one run left, for the tests of this transport and mode. */
  private static Report report;

  @BeforeParameterizedClassInvocation
  static void runEveryCase(Transports transport, Mode mode) throws Exception {
    report = Report.of(transport, mode);
  }

  @AfterParameterizedClassInvocation
  static void forget() {
    report = null;
  }

  @Test
  @Case(FaultCase.CONTROL)
  void controlSessionsAmongTheFaultsSucceed() {
    check(FaultCase.CONTROL);
  }

  @Test
  @Case(FaultCase.ENDLESS_LINE)
  void endlessLineFailsWithLineTooLongOnceTheLimitIsPassed() {
    check(FaultCase.ENDLESS_LINE);
  }

  @Test
  @Case(FaultCase.STALL)
  void stalledPeerFailsWithTimeoutAfterTheOperationTimeout() {
    check(FaultCase.STALL);
  }

  @Test
  @Case(FaultCase.RESET_MID_LINE)
  void resetMidLineFailsWithSocketExceptionConnectionReset() {
    check(FaultCase.RESET_MID_LINE);
  }

  @Test
  @Case(FaultCase.GARBAGE)
  void garbageReplyFailsWithTheClientsProtocolViolation() {
    check(FaultCase.GARBAGE);
  }

  @Test
  @Case(FaultCase.DRIP)
  void dripFeedingPeerFailsWithTimeoutAtTheSessionDeadline() {
    check(FaultCase.DRIP);
  }

  @Test
  @Case(FaultCase.HALF_CLOSE)
  void halfCloseAfterOneLineIsEndOfStream() {
    check(FaultCase.HALF_CLOSE);
  }

  @Test
  @Case(FaultCase.REFUSED)
  void refusedConnectFailsWithConnectExceptionNamingTheAddress() {
    check(FaultCase.REFUSED);
  }

  @Test
  @Case(FaultCase.KILLED_MID_RUN)
  void peerKilledMidRunFailsTheLiveSessionsWithResetAndLaterOnesWithConnectException() {
    check(FaultCase.KILLED_MID_RUN);
    List<Seen> outcomes = report.outcomes.get(FaultCase.KILLED_MID_RUN);
    Map<String, Integer> kinds = kinds(outcomes);
    assertTrue(kinds.containsKey("SUCCEEDED"), "no session succeeded before the kill: " + kinds);
    assertTrue(kinds.containsKey("FAILED java.net.SocketException"), "no session saw the reset: " + kinds);
    assertTrue(kinds.containsKey("FAILED java.net.ConnectException"), "no connect was refused after: " + kinds);
  }

  @Test
  @Case(FaultCase.REPLY_1_MIB)
  void oneMebibyteReplyIsReadWhole() {
    check(FaultCase.REPLY_1_MIB);
  }

  @Test
  @Case(FaultCase.REPLY_16_MIB)
  void sixteenMebibyteReplyIsReadWhole() {
    check(FaultCase.REPLY_16_MIB);
  }

  @Test
  @Case(FaultCase.LINE_1_MB)
  void oneMegabyteLineIsReadWithinItsLimit() {
    check(FaultCase.LINE_1_MB);
  }

  @Test
  @Case(FaultCase.FLUSH_TO_NON_READER)
  void flushToPeerThatNeverReadsFailsWithTimeoutAndClosesTheTransport() {
    check(FaultCase.FLUSH_TO_NON_READER);
  }

  @Test
  void runReturnsWithEverySocketOfItsSessionsClosed() {
    assertEquals(0, report.clientSocketsAfterRun,
        "client sockets to the peers still open when run() returned");
  }

  @Test
  void nothingIsLeftAfterClose() {
    assertEquals(List.of(), report.threadsLeft, "threads left after the run, its connector and peers closed");
    assertTrue(report.descriptorsAfter <= report.descriptorsBefore, "socket, pipe and epoll descriptors: "
        + report.descriptorsBefore + " before, " + report.descriptorsAfter + " after");
    long grown = report.heapAfter - report.heapBefore;
    assertTrue(grown <= HEAP_TOLERANCE_BYTES, "live heap after GC grew by " + (grown >> 10) + " KiB: "
        + (report.heapBefore >> 10) + " KiB before, " + (report.heapAfter >> 10) + " KiB after");
  }

  @Test
  void cancelledSessionsFailWithSessionCancelledException() throws Exception {
    int sessions = mode.kind() == Mode.Kind.SYNC ? 1 : 100;
    try (Peer peer = transport.startPeer(FaultCase.STALL, sessions);
        Connector connector = transport.connectors.get();
        SessionRunner runner = builder(connector, mode).address(peer.address).timeout(Timeout.NONE)
            .maxInFlight(sessions).build()) {
      String[] cases = new String[sessions];
      java.util.Arrays.fill(cases, FaultCase.STALL.name());
      AtomicReference<RunResult<String>> result = new AtomicReference<>();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread running = new Thread(() -> {
        try {
          result.set(runner.run(FaultSession.class, sessions, cases, new long[sessions],
              Long.valueOf(0L), Long.valueOf(0L)));
        } catch (Throwable t) {
          failure.set(t);
        }
      }, "cancelled-run");
      running.start();
      // The STALL task sets no timeout of its own here (0): only the cancel can end them.
      assertTrue(peer.await.awaitRequests(sessions, 60, TimeUnit.SECONDS), "sessions did not all start");
      runner.cancel();
      running.join(TimeUnit.SECONDS.toMillis(60));
      assertTrue(!running.isAlive(), "run() did not return after cancel()");
      if (failure.get() != null) {
        throw new AssertionError(failure.get());
      }
      for (Outcome<String> o : result.get().outcomes()) {
        assertEquals(Outcome.Status.CANCELLED, o.status(), o.toString());
        assertNotNull(o.failure(), o.toString());
        assertEquals(SessionCancelledException.class, o.failure().getClass(), o.toString());
      }
    }
  }

  // ---- checks

  private static void check(FaultCase c) {
    Report r = report;
    assumeTrue(r.transport.has(c), c + " does not exist on " + r.transport);
    List<Seen> outcomes = r.outcomes.get(c);
    assertTrue(outcomes != null && !outcomes.isEmpty(), "no sessions of " + c);
    List<String> wrong = new ArrayList<>();
    for (Seen o : outcomes) {
      String problem = problem(c, o, r);
      if (problem != null && wrong.size() < 5) {
        wrong.add(problem);
      }
    }
    if (!wrong.isEmpty()) {
      fail(c + " in " + r.transport + "/" + r.mode + ": " + kinds(outcomes) + " of " + outcomes.size()
          + " sessions; for example:\n  " + String.join("\n  ", wrong), firstFailure(outcomes));
    }
  }

  private static String problem(FaultCase c, Seen o, Report r) {
    if (o.status() == Outcome.Status.SUCCEEDED) {
      if (c.mustFail()) {
        return o + ": succeeded, expected " + c.failures();
      }
    } else if (o.status() != Outcome.Status.FAILED || o.failure() == null) {
      return o + ": not a failure of the session";
    } else if (!c.failures().contains(o.failure())) {
      return o + ": expected exactly one of " + c.failures();
    } else {
      String message = String.valueOf(o.message);
      if (!message.toLowerCase().contains(c.messageFragment().toLowerCase())) {
        return o + ": message lacks \"" + c.messageFragment() + "\"";
      }
      if (c == FaultCase.FLUSH_TO_NON_READER && !message.startsWith(timerNamed(c))) {
        return o + ": message does not start \"" + timerNamed(c) + "\"";
      }
      if (c == FaultCase.REFUSED && !message.contains(":" + r.refused.getPort())) {
        return o + ": message does not name " + r.refused;
      }
      String timer = timerNamed(c);
      if (timer != null && !message.contains(timer)) {
        return o + ": message does not name the timer that should have fired: \"" + timer + "\"";
      }
    }
    long elapsed = r.elapsedNanos[o.index()];
    long timeout = TimeUnit.MILLISECONDS.toNanos(timeoutMillis(c));
    if ((c == FaultCase.STALL || c == FaultCase.FLUSH_TO_NON_READER) && elapsed < timeout) {
      return o + ": timed out after " + elapsed / 1_000_000 + " ms, before its timeout of " + timeoutMillis(c) + " ms";
    }
    return null;
  }

  /** How the message of a case that ends by a timer names that timer; null for the others. */
  private static String timerNamed(FaultCase c) {
    if (c == FaultCase.STALL) {
      return "timed out after " + STALL_TIMEOUT_MILLIS + " ms";
    }
    if (c == FaultCase.DRIP) {
      return "session deadline of " + DRIP_DEADLINE_MILLIS + " ms";
    }
    if (c == FaultCase.FLUSH_TO_NON_READER) {
      return "flush timed out after " + STALL_TIMEOUT_MILLIS + " ms";
    }
    return null;
  }

  private static long timeoutMillis(FaultCase c) {
    return c == FaultCase.STALL || c == FaultCase.FLUSH_TO_NON_READER ? STALL_TIMEOUT_MILLIS : c == FaultCase.DRIP ? DRIP_DEADLINE_MILLIS : OPERATION_TIMEOUT_MILLIS;
  }

  private static Map<String, Integer> kinds(List<Seen> outcomes) {
    Map<String, Integer> kinds = new TreeMap<>();
    for (Seen o : outcomes) {
      kinds.merge(o.status() + (o.failure() == null ? "" : " " + o.failure().getName()), 1, Integer::sum);
    }
    return kinds;
  }

  private static Throwable firstFailure(List<Seen> outcomes) {
    for (Seen o : outcomes) {
      if (o.example != null) {
        return o.example;
      }
    }
    return null;
  }

  /**
   * One session's outcome without its exception's stack: a run's thousands of stack traces
   * would otherwise be most of the live heap the leak check measures. One failure per case and
   * type is kept whole, to show in a failed test.
   */
  static final class Seen {
    final int index;
    final Outcome.Status status;
    final Class<? extends Throwable> failure;
    final String message;
    final Throwable example;

    Seen(Outcome<String> o, Throwable example) {
      this.index = o.index();
      this.status = o.status();
      this.failure = o.failure() == null ? null : o.failure().getClass();
      this.message = o.failure() == null ? null : o.failure().getMessage();
      this.example = example;
    }

    int index() {
      return index;
    }

    Outcome.Status status() {
      return status;
    }

    Class<? extends Throwable> failure() {
      return failure;
    }

    @Override
    public String toString() {
      return "session " + index + ": " + status + (failure == null ? "" : " " + failure.getName() + ": " + message);
    }
  }

  static SessionRunner.Builder builder(Connector connector, Mode mode) {
    // Its peers are faulty by design (silent, stalling, dripping, killed): sessions they never answer
    // would hold the runner's connect window to its 1 s bound and stretch the run (and the time a
    // killed peer's port is dialled after it is free). The window is ConnectWindowRunTest's subject.
    SessionRunner.Builder b = SessionRunner.builder().mode(mode).connector(connector).connectWindow(0);
    if (mode.kind() == Mode.Kind.CONTINUATIONS) {
      b.instrument(FaultSession.PACKAGE);
    }
    return b;
  }

  /** One run of every case for one transport and mode, and what it left. */
  static final class Report {
    final Transports transport;
    final Mode mode;
    final Map<FaultCase, List<Seen>> outcomes = new EnumMap<>(FaultCase.class);
    long[] elapsedNanos;
    InetSocketAddress refused;
    int clientSocketsAfterRun;
    List<String> threadsLeft;
    int descriptorsBefore;
    int descriptorsAfter;
    long heapBefore;
    long heapAfter;

    private Report(Transports transport, Mode mode) {
      this.transport = transport;
      this.mode = mode;
    }

    static Report of(Transports transport, Mode mode) throws Exception {
      Report r = new Report(transport, mode);
      r.run();
      return r;
    }

    private void run() throws Exception {
      boolean sync = mode.kind() == Mode.Kind.SYNC;
      warmUp();
      Set<Thread> threadsBefore = ProcessProbe.liveThreads();
      descriptorsBefore = ProcessProbe.ioDescriptors();
      heapBefore = ProcessProbe.liveHeapAfterGc();

      Map<FaultCase, Integer> counts = new EnumMap<>(FaultCase.class);
      for (FaultCase c : enabledCases()) {
        if (transport.has(c)) {
          counts.put(c, sync ? c.syncSessions() : c.sessions());
        }
      }
      List<FaultCase> schedule = interleave(counts);
      Map<FaultCase, Peer> peers = new EnumMap<>(FaultCase.class);
      refused = FaultyPeer.refusingAddress();
      long start = System.nanoTime();
      RunResult<String> result = null;
      try {
        Set<Integer> peerPorts = new HashSet<>();
        for (FaultCase c : counts.keySet()) {
          Peer peer = transport.startPeer(c, counts.get(c));
          if (peer != null) {
            peers.put(c, peer);
            if (peer.address instanceof InetSocketAddress) {
              peerPorts.add(((InetSocketAddress) peer.address).getPort());
            }
          }
        }
        List<SocketAddress> addresses = new ArrayList<>(schedule.size());
        String[] cases = new String[schedule.size()];
        for (int i = 0; i < schedule.size(); i++) {
          FaultCase c = schedule.get(i);
          addresses.add(c == FaultCase.REFUSED ? refused : peers.get(c).address);
          cases[i] = c.name();
        }
        elapsedNanos = new long[schedule.size()];
        try (Connector connector = transport.connectors.get();
            SessionRunner runner = builder(connector, mode).addresses(addresses)
                .timeout(Timeout.of(OPERATION_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS))
                .maxInFlight(sync ? 0 : IN_FLIGHT).build()) {
          result = runWithin(runner, () -> runner.run(FaultSession.class, schedule.size(), cases, elapsedNanos,
              Long.valueOf(STALL_TIMEOUT_MILLIS), Long.valueOf(DRIP_DEADLINE_MILLIS)));
          clientSocketsAfterRun = ProcessProbe.socketsTo(peerPorts);
        }
      } finally {
        for (Peer peer : peers.values()) {
          peer.close();
        }
        // Their canned replies (16 MiB and more) are no leak of the run's.
        peers.clear();
      }
      for (FaultCase c : counts.keySet()) {
        outcomes.put(c, new ArrayList<>());
      }
      Set<String> exampled = new HashSet<>();
      for (Outcome<String> o : result.outcomes()) {
        FaultCase c = schedule.get(o.index());
        String kind = c + " " + o.status() + " " + (o.failure() == null ? "" : o.failure().getClass().getName());
        outcomes.get(c).add(new Seen(o, o.failure() != null && exampled.add(kind) ? o.failure() : null));
      }
      String summary = result.toString();
      result = null;
      long runMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      threadsLeft = ProcessProbe.threadsLeftSince(threadsBefore, 5_000);
      descriptorsAfter = ProcessProbe.ioDescriptors();
      heapAfter = ProcessProbe.liveHeapAfterGc();
      // Figures for the log, not assertions.
      System.out.println("fault contract, " + transport + " in " + mode + ": " + schedule.size() + " sessions in "
          + runMillis + " ms; " + summary + "; live heap after GC " + (heapBefore >> 10) + " KiB before, "
          + (heapAfter >> 10) + " KiB after");
    }

    /**
     * A few control sessions on a connector of their own, so that what the first use of a
     * transport and mode sets up for good (classes and their static state, the JDK's lazily
     * opened descriptors) is in the baseline, not counted as left by the run.
     */
    private void warmUp() throws Exception {
      // What every run uses whatever its transport: a loopback peer and a refused address.
      FaultyPeer.start(FaultyPeer.Fault.ECHO).close();
      FaultyPeer.refusingAddress();
      int sessions = 20;
      String[] cases = new String[sessions];
      java.util.Arrays.fill(cases, FaultCase.CONTROL.name());
      try (Peer peer = transport.startPeer(FaultCase.CONTROL, sessions);
          Connector connector = transport.connectors.get();
          SessionRunner runner = builder(connector, mode).address(peer.address)
              .timeout(Timeout.of(OPERATION_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)).build()) {
        RunResult<String> warm = runner.run(FaultSession.class, sessions, cases, new long[sessions],
            Long.valueOf(STALL_TIMEOUT_MILLIS), Long.valueOf(DRIP_DEADLINE_MILLIS));
        if (!warm.allSucceeded()) {
          throw new AssertionError("warm-up control sessions failed: " + warm.failures().get(0), warm.failures().get(0).failure());
        }
      }
    }

    interface RunCall {
      RunResult<String> run() throws Exception;
    }

    /**
     * Runs {@code call} on its own thread and cancels the run if it is not over within
     * {@link #RUN_BUDGET_SECONDS}: a case that hangs then shows as CANCELLED sessions in its test,
     * instead of hanging the build.
     */
    private static RunResult<String> runWithin(SessionRunner runner, RunCall call) throws Exception {
      AtomicReference<RunResult<String>> result = new AtomicReference<>();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread running = new Thread(() -> {
        try {
          result.set(call.run());
        } catch (Throwable t) {
          failure.set(t);
        }
      }, "fault-contract-run");
      running.start();
      running.join(TimeUnit.SECONDS.toMillis(RUN_BUDGET_SECONDS));
      if (running.isAlive()) {
        runner.cancel();
        running.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("run() threw", failure.get());
      }
      return result.get();
    }

    /** Each case's sessions spread evenly over the run, so every case runs beside every other. */
    private static List<FaultCase> interleave(Map<FaultCase, Integer> counts) {
      int total = counts.values().stream().mapToInt(Integer::intValue).sum();
      List<FaultCase> schedule = new ArrayList<>(total);
      Map<FaultCase, Integer> placed = new EnumMap<>(FaultCase.class);
      for (int i = 0; i < total; i++) {
        // Next: the case furthest behind its share of the run so far.
        FaultCase next = null;
        double lag = -1;
        for (Map.Entry<FaultCase, Integer> e : counts.entrySet()) {
          int done = placed.getOrDefault(e.getKey(), 0);
          if (done == e.getValue()) {
            continue;
          }
          double behind = (double) (i + 1) * e.getValue() / total - done;
          if (behind > lag) {
            lag = behind;
            next = e.getKey();
          }
        }
        placed.merge(next, 1, Integer::sum);
        schedule.add(next);
      }
      return schedule;
    }
  }
}
