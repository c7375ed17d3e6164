package io.weft.continuations;

import io.weft.continuations.spi.SuspendingConnector;
/**
 * How a {@link SessionRunner} runs sessions. The same task class runs unchanged in every mode.
 *
 * <table>
 *   <caption>The modes</caption>
 *   <tr><th>mode</th><th>who waits on I/O</th><th>needs</th></tr>
 *   <tr><td>{@link #SYNC}</td><td>the caller's thread, one session after another</td><td>-</td></tr>
 *   <tr><td>{@link #THREADS}</td><td>a platform thread per session</td><td>-</td></tr>
 *   <tr><td>{@link #continuations(int) CONTINUATIONS(k)}</td><td>nobody: suspended continuations,
 *       resumed from a ready queue by k worker threads</td><td>a {@link SuspendingConnector};
 *       the task's packages given to {@link SessionRunner.Builder#instrument}, or its classes
 *       rewritten ahead of time and {@link SessionRunner.Builder#alreadyRewritten}</td></tr>
 *   <tr><td>{@link #VIRTUAL_THREADS}</td><td>a virtual thread per session</td><td>JDK 21+</td></tr>
 * </table>
 */
public final class Mode {
  /** Kinds of mode. */
  public enum Kind { SYNC, THREADS, CONTINUATIONS, VIRTUAL_THREADS }

  public static final Mode SYNC = new Mode(Kind.SYNC, 1);
  public static final Mode THREADS = new Mode(Kind.THREADS, 0);
  public static final Mode VIRTUAL_THREADS = new Mode(Kind.VIRTUAL_THREADS, 0);

  private final Kind kind;
  private final int workers;

  private Mode(Kind kind, int workers) {
    this.kind = kind;
    this.workers = workers;
  }

  /** Continuations resumed by {@code workers} threads. */
  public static Mode continuations(int workers) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers < 1: " + workers);
    }
    return new Mode(Kind.CONTINUATIONS, workers);
  }

  public Kind kind() {
    return kind;
  }

  /** Worker threads of {@code CONTINUATIONS}; 1 for {@code SYNC}; 0 (one per session) otherwise. */
  public int workers() {
    return workers;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Mode && ((Mode) o).kind == kind && ((Mode) o).workers == workers;
  }

  @Override
  public int hashCode() {
    return kind.hashCode() * 31 + workers;
  }

  @Override
  public String toString() {
    return kind == Kind.CONTINUATIONS ? "CONTINUATIONS(" + workers + ")" : kind.name();
  }
}
