package io.weft.perf.peers;

/**
 * One client of the peers benchmark: runs a {@link PeerWorkload} against redis-server and says
 * what it did. An in-process client runs in this JVM, and the benchmark measures CPU, context
 * switches, heap and threads around its run; an external one (redis-benchmark) is a child
 * process and brings its own figures.
 *
 * <p>Lifecycle: made once per benchmark, run many times (warm-up and every round), closed at the
 * end; a client may keep its connectors and threads between runs, as a real application would.
 */
interface PeerClient extends AutoCloseable {
  /** The row's label. */
  String label();

  /** Why this client cannot run {@code workload} here (JDK, limits), or null when it can. */
  String unavailableReason(PeerWorkload workload);

  /** True when it runs in this JVM. */
  boolean inProcess();

  /** True when its runs' figures include its JIT compiler threads' CPU (a JVM's client). */
  default boolean measuresItsJit() {
    return inProcess();
  }

  /** Runs the workload once and returns when every session has ended. */
  ClientRun run(PeerWorkload workload) throws Exception;

  @Override
  void close();
}
