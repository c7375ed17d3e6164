package io.weft.perf.peers;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.perf.peers.session.IncrSession;
import io.weft.transport.Connector;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.spi.VirtualThreads;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.mina.MinaConnector;
import io.weft.transport.netty.SuspendingNettyConnector;
import io.weft.transport.netty.NettyConnector;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Weft's own {@link SessionRunner} running {@link IncrSession} over protocols'
 * {@code RedisClient}, in one mode over one connector: {@code continuations(k)} over
 * {@link SuspendingMinaConnector#tcp()} or {@link SuspendingNettyConnector#tcp()} (the session
 * and the Redis client rewritten at load time by the runner's class loader), THREADS and
 * VIRTUAL_THREADS over {@link SocketConnector}, the blocking {@link MinaConnector} or the
 * blocking {@link NettyConnector}. At most N sessions in flight through the runner's
 * {@code maxInFlight(N)}, all of one run in one {@code run} call.
 *
 * <p>The connector is made once and kept; the runner is made per N (its in-flight bound) and
 * kept while N stays, so warm-up leaves the rewritten classes loaded and compiled.
 */
final class WeftRunnerClient implements PeerClient {
  static final String[] INSTRUMENTED = {
      "io.weft.perf.peers.session", "io.weft.protocols.redis", "io.weft.protocols.internal"};

  private final String label;
  private final io.weft.continuations.Mode mode;
  private final Supplier<Connector> connectors;
  private Connector connector;
  private SessionRunner runner;
  private int runnerConcurrency;

  private WeftRunnerClient(String label, io.weft.continuations.Mode mode, Supplier<Connector> connectors) {
    this.label = label;
    this.mode = mode;
    this.connectors = connectors;
  }

  static WeftRunnerClient continuations(int workers) {
    return new WeftRunnerClient("weft cont(" + workers + ") mina", io.weft.continuations.Mode.continuations(workers),
        SuspendingMinaConnector::tcp);
  }

  /**
   * Continuations over MINA with MINA's own default processor count, one more than the cores,
   * instead of the continuation connector's one: where a processor count's effect on context
   * switches and CPU per round trip is measured (the continuation connector ran MINA's default
   * before 2026-11-27).
   */
  static WeftRunnerClient continuationsMinaDefaultProcessors(int workers) {
    int processors = Runtime.getRuntime().availableProcessors() + 1;
    return new WeftRunnerClient("weft cont(" + workers + ") mina, " + processors + " processors",
        io.weft.continuations.Mode.continuations(workers),
        () -> SuspendingMinaConnector.builder().processorCount(processors).tcp());
  }

  /** Continuations over Weft's Netty transport, resumed on its one event loop. */
  static WeftRunnerClient continuationsOverNetty(int workers) {
    return new WeftRunnerClient("weft cont(" + workers + ") netty", io.weft.continuations.Mode.continuations(workers),
        SuspendingNettyConnector::tcp);
  }

  static WeftRunnerClient virtualThreadsOverNetty() {
    return new WeftRunnerClient("weft VT netty", io.weft.continuations.Mode.VIRTUAL_THREADS, NettyConnector::tcp);
  }

  /** Continuations resumed by the ready-queue workers instead of on the I/O thread. */
  static WeftRunnerClient continuationsOnWorkers(int workers) {
    return new WeftRunnerClient("weft cont(" + workers + ") mina, workers",
        io.weft.continuations.Mode.continuations(workers).resumeOnWorkers(), SuspendingMinaConnector::tcp);
  }

  static WeftRunnerClient threadsOverSocket() {
    return new WeftRunnerClient("weft THREADS socket", io.weft.continuations.Mode.THREADS, SocketConnector::new);
  }

  static WeftRunnerClient threadsOverMina() {
    return new WeftRunnerClient("weft THREADS mina", io.weft.continuations.Mode.THREADS, MinaConnector::tcp);
  }

  static WeftRunnerClient virtualThreadsOverSocket() {
    return new WeftRunnerClient("weft VT socket", io.weft.continuations.Mode.VIRTUAL_THREADS, SocketConnector::new);
  }

  static WeftRunnerClient virtualThreadsOverMina() {
    return new WeftRunnerClient("weft VT mina", io.weft.continuations.Mode.VIRTUAL_THREADS, MinaConnector::tcp);
  }

  @Override
  public String label() {
    return label;
  }

  @Override
  public String unavailableReason(PeerWorkload workload) {
    if (mode.kind() == io.weft.continuations.Mode.Kind.VIRTUAL_THREADS) {
      return VirtualThreads.unavailableReason();
    }
    return null;
  }

  @Override
  public boolean inProcess() {
    return true;
  }

  @Override
  public ClientRun run(PeerWorkload workload) throws InterruptedException {
    SessionRunner sessions = runner(workload);
    RoundTrips roundTrips = new RoundTrips();
    long start = System.nanoTime();
    RunResult<Integer> result = sessions.run(IncrSession.class, workload.totalSessions,
        workload.requestsPerSession, workload.keys, roundTrips);
    long wall = System.nanoTime() - start;
    int failed = 0;
    FailureKinds failures = new FailureKinds();
    for (Outcome<Integer> o : result.outcomes()) {
      if (o.status() != Outcome.Status.SUCCEEDED
          || !Integer.valueOf(workload.requestsPerSession).equals(o.value())) {
        failed++;
        failures.add(o.index(), o.failure() != null ? o.failure()
            : o.status() == Outcome.Status.SUCCEEDED ? "succeeded with " + o.value() + " round trips" : o.status());
      }
    }
    return ClientRun.inProcess(failed, failures.summary(), wall, roundTrips.interval());
  }

  private SessionRunner runner(PeerWorkload workload) {
    if (connector == null) {
      connector = connectors.get();
    }
    if (runner != null && runnerConcurrency != workload.concurrency) {
      runner.close();
      runner = null;
    }
    if (runner == null) {
      // Unpaced: the figure is of the sessions, not of a connect ramp; the servers here listen deep.
      SessionRunner.Builder b = SessionRunner.builder().connectPacing(ConnectPacing.NONE).mode(mode).connector(connector).address(workload.redis)
          .maxInFlight(workload.concurrency)
          .timeout(Timeout.of(workload.timeoutNanos, TimeUnit.NANOSECONDS)
              .withSessionDeadline(workload.timeoutNanos, TimeUnit.NANOSECONDS));
      if (mode.kind() == io.weft.continuations.Mode.Kind.CONTINUATIONS) {
        b.instrument(INSTRUMENTED);
      }
      runner = b.build();
      runnerConcurrency = workload.concurrency;
    }
    return runner;
  }

  @Override
  public void close() {
    try {
      if (runner != null) {
        runner.close();
      }
    } finally {
      runner = null;
      if (connector != null) {
        connector.close();
        connector = null;
      }
    }
  }
}
