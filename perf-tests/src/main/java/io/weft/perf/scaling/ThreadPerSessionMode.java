package io.weft.perf.scaling;

import io.weft.perf.internal.VirtualThreads;
import io.weft.perf.tester.TesterSession;
import io.weft.transport.Connector;
import io.weft.transport.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * A thread per session running the blocking {@link TesterSession} over a blocking transport:
 * platform threads (THREADS) or virtual threads (VIRTUAL_THREADS, JDK 21+). A stand-in for
 * those modes of Weft's runner until it exists; TCP only, over {@link SocketConnector}, until
 * a blocking transport over the in-VM pipe (MinaTransport) is in this module's reach.
 *
 * <p>Platform threads stop somewhere: at the {@code maxThreads} cap, or when the JVM cannot
 * start another thread ({@link OutOfMemoryError} "unable to create native thread"), in which
 * case the sessions already started finish and the outcome says where it stopped and why.
 */
public final class ThreadPerSessionMode implements Mode {
  private final String name;
  private final Function<Runnable, Thread> starter;
  private final int maxThreads;
  private final String unavailable;

  private ThreadPerSessionMode(String name, Function<Runnable, Thread> starter, int maxThreads,
      String unavailable) {
    this.name = name;
    this.starter = starter;
    this.maxThreads = maxThreads;
    this.unavailable = unavailable;
  }

  /** THREADS: one platform thread per session, at most {@code maxThreads} sessions. */
  public static ThreadPerSessionMode platformThreads(int maxThreads, long stackBytes) {
    if (maxThreads < 1) {
      throw new IllegalArgumentException("maxThreads < 1: " + maxThreads);
    }
    if (stackBytes < 0) {
      throw new IllegalArgumentException("stackBytes < 0: " + stackBytes);
    }
    AtomicInteger ids = new AtomicInteger();
    return new ThreadPerSessionMode("THREADS", task -> {
      Thread thread = new Thread(null, task, "session-" + ids.incrementAndGet(), stackBytes);
      thread.setDaemon(true);
      thread.start();
      return thread;
    }, maxThreads, null);
  }

  /** VIRTUAL_THREADS: one virtual thread per session; unavailable before JDK 21. */
  public static ThreadPerSessionMode virtualThreads() {
    return new ThreadPerSessionMode("VIRTUAL_THREADS", VirtualThreads::start, Integer.MAX_VALUE,
        VirtualThreads.unavailableReason());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String unavailableReason(Workload workload) {
    if (unavailable != null) {
      return unavailable;
    }
    if (workload.transport == TransportKind.PIPE) {
      return "needs a blocking transport over the in-VM pipe (MinaTransport), not wired in yet";
    }
    if (workload.sessions > maxThreads) {
      return "over the --max-threads cap of " + maxThreads + Limits.threadLimitsNote();
    }
    return null;
  }

  @Override
  public Outcome run(Workload workload) throws InterruptedException {
    TesterSession task = new TesterSession(workload.transactions, workload.latency);
    Timeout timeout = Timeout.NONE.withSessionDeadline(workload.timeoutNanos, TimeUnit.NANOSECONDS);
    Semaphore connectPermits = new Semaphore(workload.connectsInFlight);
    CountDownLatch ended = new CountDownLatch(workload.sessions);
    AtomicInteger completed = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    AtomicReference<String> firstFailure = new AtomicReference<>();
    String stoppedBecause = null;
    long start = System.nanoTime();
    try (Connector connector = new SocketConnector()) {
      int started = 0;
      for (; started < workload.sessions; started++) {
        int index = started;
        Runnable session = () -> {
          try {
            Transport transport;
            connectPermits.acquireUninterruptibly();
            try {
              transport = connector.connect(workload.serverFor(index), timeout);
            } finally {
              connectPermits.release();
            }
            try (transport) {
              task.run(transport, index);
            }
            completed.incrementAndGet();
          } catch (Exception | Error e) {
            failed.incrementAndGet();
            firstFailure.compareAndSet(null, "session " + index + ": " + e);
          } finally {
            ended.countDown();
          }
        };
        try {
          starter.apply(session);
        } catch (OutOfMemoryError e) {
          stoppedBecause = "could not start thread " + (started + 1) + ": " + e.getMessage()
              + Limits.threadLimitsNote();
          break;
        }
      }
      for (int i = started; i < workload.sessions; i++) {
        ended.countDown();
      }
      if (!ended.await(workload.timeoutNanos, TimeUnit.NANOSECONDS)) {
        stoppedBecause = "timed out with " + ended.getCount() + " sessions still running";
      }
      long wall = System.nanoTime() - start;
      return new Outcome(completed.get(), failed.get(), firstFailure.get(), wall, stoppedBecause);
    }
  }
}
