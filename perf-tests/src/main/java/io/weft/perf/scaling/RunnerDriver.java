package io.weft.perf.scaling;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Outcome.Status;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.protocols.tester.LineTesterTask;
import io.weft.transport.Connector;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.spi.VirtualThreads;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.mina.MinaConnector;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * A mode of Weft's own {@link SessionRunner} running {@link LineTesterTask}: CONTINUATIONS(k)
 * over {@link SuspendingMinaConnector} (the task class loaded, and rewritten, by the runner's
 * {@code ContinuationClassLoader} over {@value #TASK_PACKAGE}), THREADS over the blocking
 * {@link MinaConnector}, VIRTUAL_THREADS over a {@link SocketConnector} on TCP (what a user of
 * virtual threads writes) and the blocking MINA pipe on the in-VM pipe. Sessions spread
 * round robin over the workload's server addresses ({@link SessionRunner.Builder#addresses}).
 *
 * <p>Per transport one connector and one runner are made on first use and kept for every later
 * run (warm-up included), so the rewritten classes stay loaded and compiled and no run times a
 * connector's start. Every session is in flight at once (no {@code maxInFlight}); connects are
 * not throttled ({@link Workload#connectsInFlight} is for the clients that own their connects).
 *
 * <p>THREADS stops at {@code maxThreads} sessions (the row says so); a thread the JVM cannot
 * start fails the run, and the row says how.
 */
public final class RunnerDriver implements SessionDriver {
  static final String TASK_PACKAGE = "io.weft.protocols.tester";

  private final String name;
  private final io.weft.continuations.Mode mode;
  private final int maxSessions;
  private final int ioThreads;
  private final Map<TransportKind, Runner> runners = new EnumMap<>(TransportKind.class);

  private RunnerDriver(String name, io.weft.continuations.Mode mode, int maxSessions, int ioThreads) {
    if (ioThreads < 1) {
      throw new IllegalArgumentException("ioThreads < 1: " + ioThreads);
    }
    this.name = name;
    this.mode = mode;
    this.maxSessions = maxSessions;
    this.ioThreads = ioThreads;
  }

  /** CONTINUATIONS_k: {@code workers} threads resume the suspended sessions. */
  public static RunnerDriver continuations(int workers, int ioThreads) {
    return new RunnerDriver("CONTINUATIONS_" + workers, io.weft.continuations.Mode.continuations(workers),
        Integer.MAX_VALUE, ioThreads);
  }

  /** THREADS: a platform thread per session, at most {@code maxThreads} sessions. */
  public static RunnerDriver threads(int maxThreads, int ioThreads) {
    if (maxThreads < 1) {
      throw new IllegalArgumentException("maxThreads < 1: " + maxThreads);
    }
    return new RunnerDriver("THREADS", io.weft.continuations.Mode.THREADS, maxThreads, ioThreads);
  }

  /** VIRTUAL_THREADS: a virtual thread per session; unavailable before JDK 21. */
  public static RunnerDriver virtualThreads(int ioThreads) {
    return new RunnerDriver("VIRTUAL_THREADS", io.weft.continuations.Mode.VIRTUAL_THREADS,
        Integer.MAX_VALUE, ioThreads);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String unavailableReason(Workload workload) {
    if (mode.kind() == io.weft.continuations.Mode.Kind.VIRTUAL_THREADS
        && VirtualThreads.unavailableReason() != null) {
      return VirtualThreads.unavailableReason();
    }
    if (workload.sessions > maxSessions) {
      return "over the --max-threads cap of " + maxSessions + Limits.threadLimitsNote();
    }
    return null;
  }

  @Override
  public RunReport run(Workload workload) throws InterruptedException {
    Runner runner = runner(workload);
    long start = System.nanoTime();
    RunResult<Integer> result = runner.sessions.run(LineTesterTask.class, workload.sessions,
        workload.transactions, (LongConsumer) workload.latency);
    long wall = System.nanoTime() - start;
    int completed = 0;
    int failed = 0;
    String firstFailure = null;
    for (io.weft.continuations.Outcome<Integer> o : result.outcomes()) {
      if (o.status() == Status.SUCCEEDED && Integer.valueOf(workload.transactions).equals(o.value())) {
        completed++;
      } else {
        failed++;
        if (firstFailure == null) {
          firstFailure = "session " + o.index() + ": " + (o.failure() != null ? o.failure()
              : o.status() + " with " + o.value() + " exchanges");
        }
      }
    }
    return new RunReport(completed, failed, firstFailure, wall, null);
  }

  private Runner runner(Workload workload) {
    Runner runner = runners.get(workload.transport);
    if (runner != null && !runner.servers.equals(workload.servers)) {
      runner.close();
      runner = null;
    }
    if (runner == null) {
      runner = new Runner(workload);
      runners.put(workload.transport, runner);
    }
    return runner;
  }

  @Override
  public void close() {
    for (Runner runner : runners.values()) {
      runner.close();
    }
    runners.clear();
  }

  /** One transport's connector and runner. */
  private final class Runner {
    final List<?> servers;
    final Connector connector;
    final SessionRunner sessions;

    Runner(Workload workload) {
      this.servers = workload.servers;
      boolean pipe = workload.transport == TransportKind.PIPE;
      if (mode.kind() == io.weft.continuations.Mode.Kind.CONTINUATIONS) {
        SuspendingMinaConnector.Builder b = SuspendingMinaConnector.builder().processorCount(ioThreads);
        connector = pipe ? b.vmPipe() : b.tcp();
      } else if (mode.kind() == io.weft.continuations.Mode.Kind.VIRTUAL_THREADS && !pipe) {
        // What a user of virtual threads writes: a blocking java.net.Socket per session.
        connector = new SocketConnector();
      } else {
        MinaConnector.Builder b = MinaConnector.builder().processorCount(ioThreads);
        connector = pipe ? b.vmPipe() : b.tcp();
      }
      try {
        // Unpaced: the figure is of the sessions, not of a connect ramp; the servers here listen deep.
        sessions = SessionRunner.builder().connectPacing(ConnectPacing.NONE).mode(mode).connector(connector)
            .addresses(workload.servers)
            .timeout(Timeout.NONE.withSessionDeadline(workload.timeoutNanos, TimeUnit.NANOSECONDS))
            .instrument(TASK_PACKAGE).build();
      } catch (RuntimeException | Error e) {
        connector.close();
        throw e;
      }
    }

    void close() {
      try {
        sessions.close();
      } finally {
        connector.close();
      }
    }
  }
}
