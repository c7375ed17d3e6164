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
 *       resumed on the transport's I/O thread where the bytes arrive, or, with
 *       {@link #resumeOnWorkers()}, from a ready queue by k worker threads</td><td>a {@link SuspendingConnector};
 *       the task's packages given to {@link SessionRunner.Builder#instrument}, or its classes
 *       rewritten ahead of time and {@link SessionRunner.Builder#alreadyRewritten}</td></tr>
 *   <tr><td>{@link #VIRTUAL_THREADS}</td><td>a virtual thread per session</td><td>JDK 21+</td></tr>
 * </table>
 *
 * <p><b>Where continuations resume.</b> By default a session whose wait ends on a transport's
 * I/O thread (input arrived, a write completed) is resumed on that thread at once, as Netty runs
 * its handlers on the event loop: no queue, no wake-up of another thread. That is the fastest
 * choice for network-bound sessions, which do little between waits. A session that does heavy
 * CPU work between waits holds up every other connection on its I/O thread meanwhile; for those,
 * {@link #resumeOnWorkers()} resumes every session from the ready queue on the k workers, and
 * the I/O threads only read and write. Sessions start, and resume after a timeout or a
 * cancellation, on the workers in both cases.
 */
public final class Mode {
  /** Kinds of mode. */
  public enum Kind {
    /** Sessions one after another on the calling thread. */
    SYNC,
    /** A platform thread per session. */
    THREADS,
    /** Rewritten sessions suspended and resumed by a few worker threads. */
    CONTINUATIONS,
    /** A virtual thread per session (JDK 21+). */
    VIRTUAL_THREADS
  }

  /** One session after another on the calling thread. */
  public static final Mode SYNC = new Mode(Kind.SYNC, 1);
  /** One platform thread per session. */
  public static final Mode THREADS = new Mode(Kind.THREADS, 0);
  /** One virtual thread per session; needs JDK 21 or later. */
  public static final Mode VIRTUAL_THREADS = new Mode(Kind.VIRTUAL_THREADS, 0);

  private final Kind kind;
  private final int workers;
  private final boolean onWorkers;

  private Mode(Kind kind, int workers) {
    this(kind, workers, false);
  }

  private Mode(Kind kind, int workers, boolean onWorkers) {
    this.kind = kind;
    this.workers = workers;
    this.onWorkers = onWorkers;
  }

  /**
   * Continuations resumed by {@code workers} threads.
   *
   * @param workers the number of carrier threads that run the continuations, at least 1
   * @return the mode
   */
  public static Mode continuations(int workers) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers < 1: " + workers);
    }
    return new Mode(Kind.CONTINUATIONS, workers);
  }

  /**
   * This {@code CONTINUATIONS} mode with every resume on the k workers, none on the transport's
   * I/O threads: for sessions that do heavy CPU work between waits (see the class javadoc).
   *
   * @return this mode, resumed on its workers only
   * @throws IllegalStateException if this is not a {@code CONTINUATIONS} mode
   */
  public Mode resumeOnWorkers() {
    if (kind != Kind.CONTINUATIONS) {
      throw new IllegalStateException("only CONTINUATIONS resumes: " + this);
    }
    return new Mode(kind, workers, true);
  }

  /**
   * Whether continuations resume only on the workers.
   *
   * @return true when continuations resume only on the workers (see {@link #resumeOnWorkers()})
   */
  public boolean resumesOnWorkers() {
    return onWorkers;
  }

  /**
   * The kind of scheduling.
   *
   * @return the kind of this mode
   */
  public Kind kind() {
    return kind;
  }

  /**
   * Worker threads of {@code CONTINUATIONS}; 1 for {@code SYNC}; 0 (one per session) otherwise.
   *
   * @return the worker threads of {@code CONTINUATIONS}, 1 for {@code SYNC}, 0 otherwise
   */
  public int workers() {
    return workers;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Mode && ((Mode) o).kind == kind && ((Mode) o).workers == workers
        && ((Mode) o).onWorkers == onWorkers;
  }

  @Override
  public int hashCode() {
    return (kind.hashCode() * 31 + workers) * 2 + (onWorkers ? 1 : 0);
  }

  @Override
  public String toString() {
    if (kind != Kind.CONTINUATIONS) {
      return kind.name();
    }
    return "CONTINUATIONS(" + workers + (onWorkers ? ", resume on workers)" : ")");
  }
}
