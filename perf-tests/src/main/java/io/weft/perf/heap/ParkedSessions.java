package io.weft.perf.heap;

/**
 * One way of keeping sessions waiting, for {@link HeapPerSession} to weigh: platform threads,
 * virtual threads, and sessions of Weft's runner (suspended continuations among them). Add a kind by
 * implementing this and listing it in {@link HeapPerSession#kinds(long)}.
 */
public interface ParkedSessions {

  /** The name in the table, e.g. {@code VIRTUAL_THREADS}. */
  String name();

  /** Why this kind cannot run here (e.g. needs JDK 21+), or null if it can. */
  String unavailableReason();

  /**
   * Starts {@code count} sessions, each waiting {@code depth} frames down (as a session waits
   * inside a protocol client's read), and returns once every one of them is waiting.
   */
  Parked park(int count, int depth) throws Exception;

  /** Sessions kept waiting until {@link #close()}. */
  interface Parked extends AutoCloseable {

    /** How many sessions were seen waiting when {@link #park} returned. */
    int waiting();

    /** Lets every session run to its end and waits for that. */
    @Override
    void close() throws Exception;
  }
}
