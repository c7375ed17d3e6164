package io.weft.load.internal;

import io.weft.continuations.ConnectWindow;
import java.util.HashMap;
import java.util.Map;

/**
 * What a run's connect window did, as its summary's {@code connect window} line says it: the
 * figures of a {@link ConnectWindow.Report}, written into the run's interval log ({@code #weft-load
 * window ...}) so that {@code merge} can say it for the shards together. Several windows (one per
 * server, one per shard) add up as {@link ConnectWindow.Windows#report()} adds its servers'
 * windows: counts summed, the longest full time, the largest window's size at the end, the largest
 * and the smallest size any took.
 */
final class WindowFigures {
  /** The interval log's comment: {@code window k=v ... config=CONFIG}, the configuration last (it has spaces). */
  static final String LOG = "window ";
  private static final String CONFIG = " config=";

  final int sessions;
  final int leastSessions;
  final int maxSessions;
  final int addresses;
  final int size;
  final int largest;
  final int smallest;
  final long halvings;
  final long regrowths;
  final long waited;
  final long longestFullNanos;
  final long freedUnheard;
  final long connectsFailed;
  /** Whether a window's size could change (it grows or halves); of several, whether any's could. */
  boolean sizeChanges;
  /** Whether a window halves below its first size; of several, whether any does. */
  boolean halves;

  private WindowFigures(int sessions, int leastSessions, int maxSessions, int addresses, int size, int largest,
      int smallest, long halvings, long regrowths, long waited, long longestFullNanos, long freedUnheard,
      long connectsFailed) {
    this.sessions = sessions;
    this.leastSessions = leastSessions;
    this.maxSessions = maxSessions;
    this.addresses = addresses;
    this.size = size;
    this.largest = largest;
    this.smallest = smallest;
    this.halvings = halvings;
    this.regrowths = regrowths;
    this.waited = waited;
    this.longestFullNanos = longestFullNanos;
    this.freedUnheard = freedUnheard;
    this.connectsFailed = connectsFailed;
    this.halves = leastSessions < sessions;
    this.sizeChanges = maxSessions > sessions || halves;
  }

  static WindowFigures of(ConnectWindow.Report r) {
    return new WindowFigures(r.sessions(), r.leastSessions(), r.maxSessions(), r.addresses(), r.size(), r.largest(),
        r.smallest(), r.halvings(), r.regrowths(), r.waited(), r.longestFullNanos(), r.freedUnheard(),
        r.connectsFailed());
  }

  /** This window and {@code o} together (a run's shards: a window each). */
  WindowFigures plus(WindowFigures o) {
    WindowFigures sum = new WindowFigures(Math.max(sessions, o.sessions), Math.min(leastSessions, o.leastSessions),
        Math.max(maxSessions, o.maxSessions), addresses + o.addresses, Math.max(size, o.size),
        Math.max(largest, o.largest), Math.min(smallest, o.smallest), halvings + o.halvings, regrowths + o.regrowths,
        waited + o.waited, Math.max(longestFullNanos, o.longestFullNanos), freedUnheard + o.freedUnheard,
        connectsFailed + o.connectsFailed);
    // Each window's own: windows configured differently (merged shards) say nothing of each other's.
    sum.halves = halves || o.halves;
    sum.sizeChanges = sizeChanges || o.sizeChanges;
    return sum;
  }

  /** The log's comment (without {@code #weft-load }) for a window configured as {@code config}. */
  String toLog(String config) {
    return LOG + "sessions=" + sessions + " least=" + leastSessions + " max=" + maxSessions + " addresses=" + addresses
        + " size=" + size + " largest=" + largest + " smallest=" + smallest + " halvings=" + halvings
        + " regrowths=" + regrowths + " waited=" + waited + " longestFullNanos=" + longestFullNanos
        + " freedUnheard=" + freedUnheard + " connectsFailed=" + connectsFailed + CONFIG + config;
  }

  /** The configuration written by {@link #toLog} into {@code comment} (what follows {@link #LOG}). */
  static String config(String comment) {
    int at = comment.indexOf(CONFIG);
    return at < 0 ? null : comment.substring(at + CONFIG.length());
  }

  /** The figures written by {@link #toLog} into {@code comment} (what follows {@link #LOG}); null if it is not one. */
  static WindowFigures parse(String comment) {
    int at = comment.indexOf(CONFIG);
    if (at < 0) {
      return null;
    }
    Map<String, Long> f = new HashMap<>();
    for (String kv : comment.substring(0, at).split(" ")) {
      int eq = kv.indexOf('=');
      if (eq > 0) {
        f.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
      }
    }
    String[] keys = {"sessions", "least", "max", "addresses", "size", "largest", "smallest", "halvings", "regrowths",
        "waited", "longestFullNanos", "freedUnheard", "connectsFailed"};
    for (String k : keys) {
      if (!f.containsKey(k)) {
        return null;
      }
    }
    return new WindowFigures(f.get("sessions").intValue(), f.get("least").intValue(), f.get("max").intValue(),
        f.get("addresses").intValue(), f.get("size").intValue(), f.get("largest").intValue(),
        f.get("smallest").intValue(), f.get("halvings"), f.get("regrowths"), f.get("waited"),
        f.get("longestFullNanos"), f.get("freedUnheard"), f.get("connectsFailed"));
  }
}
