package io.weft.continuations.internal.runtime;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The {@code InheritableThreadLocal} values of the thread that started a run, for its sessions:
 * what a thread made by that thread would inherit. Made on the starting thread; it makes there a
 * thread that is not started, which inherits a copy of those values as the JDK does for any new
 * thread ({@code childValue} applied once), and starts it only when a session first asks for a
 * value. It answers each inheritable thread-local once per run; the answer is kept. Its thread ends
 * on {@link #close()}.
 *
 * <p>Only a session's first use of an inheritable thread-local asks here, and waits (once per
 * thread-local per run) for the answer; a run that uses none never starts the thread.
 */
public final class InheritedValues {
  private static final Object NULL = new Object();

  private final Thread holder;
  private final LinkedBlockingQueue<Object[]> asks = new LinkedBlockingQueue<>();
  private final Map<ThreadLocal<?>, Object> known = new ConcurrentHashMap<>();
  private boolean started;
  private boolean closed;

  /** Call on the thread whose values the sessions inherit. */
  public InheritedValues() {
    holder = new Thread(this::answer, "weft-inherited-values");
    holder.setDaemon(true);
  }

  Object valueOf(InheritableThreadLocal<?> local) {
    Object value = known.get(local);
    if (value == null) {
      CompletableFuture<Object> answer = new CompletableFuture<>();
      synchronized (this) {
        if (closed) {
          throw new IllegalStateException("the run has ended");
        }
        if (!started) {
          started = true;
          holder.start();
        }
        asks.add(new Object[] {local, answer});
      }
      value = answer.join();
      known.putIfAbsent(local, value);
    }
    return value == NULL ? null : value;
  }

  private void answer() {
    for (;;) {
      Object[] ask;
      try {
        ask = asks.take();
      } catch (InterruptedException e) {
        return;
      }
      if (ask.length == 0) {
        return;
      }
      @SuppressWarnings("unchecked")
      CompletableFuture<Object> answer = (CompletableFuture<Object>) ask[1];
      try {
        Object value = ((ThreadLocal<?>) ask[0]).get();
        answer.complete(value == null ? NULL : value);
      } catch (Throwable t) {
        answer.completeExceptionally(t);
      }
    }
  }

  /** At the run's end: ends the thread, if it was started, and waits for it. */
  public void close() throws InterruptedException {
    boolean wait;
    synchronized (this) {
      closed = true;
      wait = started;
      if (started) {
        asks.add(new Object[0]);
      }
    }
    if (wait) {
      holder.join();
    }
  }
}
