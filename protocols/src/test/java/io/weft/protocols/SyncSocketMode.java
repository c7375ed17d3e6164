package io.weft.protocols;

import io.weft.transport.SessionTask;
import io.weft.transport.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * {@code SYNC} over {@link io.weft.transport.SocketTransport}: single sessions run on the
 * caller's thread. Sessions at scale run on a fixed pool of platform threads, each blocking
 * on its own socket, until the continuations runner provides the real per-mode runs.
 */
public final class SyncSocketMode extends TransportMode {
  private static final int POOL_THREADS = 64;
  private static final long RUN_LIMIT_SECONDS = 120;

  private final SocketConnector connector = new SocketConnector();

  @Override
  public String name() {
    return "SYNC/socket";
  }

  @Override
  public Transport connect(InetSocketAddress address, Timeout timeout) throws Exception {
    return connector.connect(address, timeout);
  }

  @Override
  public <T> List<T> runSessions(Class<? extends SessionTask<T>> taskClass, InetSocketAddress address,
      int sessions, Timeout timeout) throws Exception {
    SessionTask<T> task = taskClass.getConstructor().newInstance();
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(POOL_THREADS, Math.max(1, sessions)));
    try {
      List<Future<T>> futures = new ArrayList<>(sessions);
      for (int i = 0; i < sessions; i++) {
        futures.add(pool.submit(new OneSession<>(connector, task, address, timeout, i)));
      }
      List<T> results = new ArrayList<>(sessions);
      Throwable first = null;
      int failed = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RUN_LIMIT_SECONDS);
      for (Future<T> future : futures) {
        try {
          results.add(future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        } catch (java.util.concurrent.ExecutionException e) {
          failed++;
          results.add(null);
          if (first == null) {
            first = e.getCause();
          }
        }
      }
      if (failed > 0) {
        throw new AssertionError(failed + " of " + sessions + " sessions of " + taskClass.getSimpleName()
            + " failed in " + name() + "; the first: " + first, first);
      }
      return results;
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() {
    connector.close();
  }

  /** One session: connect, run, close. */
  private static final class OneSession<T> implements java.util.concurrent.Callable<T> {
    private final SocketConnector connector;
    private final SessionTask<T> task;
    private final InetSocketAddress address;
    private final Timeout timeout;
    private final int index;

    OneSession(SocketConnector connector, SessionTask<T> task, InetSocketAddress address, Timeout timeout, int index) {
      this.connector = connector;
      this.task = task;
      this.address = address;
      this.timeout = timeout;
      this.index = index;
    }

    @Override
    public T call() throws Exception {
      try (Transport transport = connector.connect(address, timeout)) {
        return task.run(transport, index);
      }
    }
  }
}
