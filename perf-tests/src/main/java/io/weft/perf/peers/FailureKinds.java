package io.weft.perf.peers;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The failed sessions of one client run, told apart by what they failed with (the exception's
 * class and message): a run that loses sessions says how many of each, not only the first.
 * Thread-safe.
 */
final class FailureKinds {
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
  private final AtomicReference<String> first = new AtomicReference<>();

  /** Session {@code session} failed with {@code failure} (or ended as {@code status} says). */
  void add(int session, Object failure) {
    String kind = String.valueOf(failure);
    counts.computeIfAbsent(kind, k -> new LongAdder()).increment();
    first.compareAndSet(null, "session " + session);
  }

  /** Adds {@code sessions} that never ended, with why. */
  void addUnended(long sessions, String why) {
    counts.computeIfAbsent(why, k -> new LongAdder()).add(sessions);
  }

  /** E.g. "27 x redis error: ERR max number of clients reached (first: session 1618)"; null if none. */
  String summary() {
    if (counts.isEmpty()) {
      return null;
    }
    StringBuilder s = new StringBuilder();
    counts.entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
        .forEach(e -> s.append(s.length() == 0 ? "" : "; ").append(e.getValue().sum()).append(" x ").append(e.getKey()));
    String f = first.get();
    return f == null ? s.toString() : s + " (first: " + f + ")";
  }
}
