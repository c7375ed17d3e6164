package io.weft.perf.scaling;

/**
 * One way of driving the tester's sessions, as {@link Scaling} compares them: Weft's runner
 * in each of its modes, and the hand-written callback client. A driver is created once per {@link Scaling} run,
 * runs many workloads one after another, and is closed at the end.
 */
public interface SessionDriver extends AutoCloseable {

  /** The name in tables, files and chart legends, e.g. {@code THREADS}. */
  String name();

  /** Why this driver cannot run {@code workload} here (shown in the table), or null if it can. */
  String unavailableReason(Workload workload);

  /**
   * Runs every session of {@code workload} concurrently and returns when all have ended or its
   * timeout has passed. Latencies go to {@code workload.latency}.
   */
  RunReport run(Workload workload) throws Exception;

  /** Releases threads and connectors; the default has none. */
  @Override
  default void close() {
  }
}
