package io.weft.simulation;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * The queue of future events, ordered by time, then by the order they were queued in: the order
 * of a priority queue, at the cost of a FIFO for most events.
 *
 * <p>Sequence numbers only grow, and time only moves forward, so most events are queued no
 * earlier than an event queued before them: every segment over a link with a fixed latency, every
 * session's timer with one timeout, every segment held back by a partition until it heals. A FIFO
 * (a lane) whose events are appended only when no earlier than its last one holds them sorted. An
 * event goes to the lane whose last event is the latest not after it (so the lanes stay apart: one
 * for the 50 ms segments, one for the 30 s timers), else to an empty lane; up to {@value #LANES}
 * lanes. A run queued at once ({@link #addSorted}: the start events, drawn at random times) is
 * sorted once and is a lane of its own. The other events go to a binary heap. The next event is
 * the least of the heap's head and the lanes' heads, so the order is exactly the heap's alone, and
 * so is the log and its hash. (Weft's {@code WaitTimer} keeps one FIFO per timeout for the same
 * reason.)
 */
final class EventQueue {
  private static final int LANES = 4;

  private final PriorityQueue<World.Event> heap = new PriorityQueue<>();
  @SuppressWarnings("unchecked")
  private final ArrayDeque<World.Event>[] lanes = new ArrayDeque[LANES];
  /** The time of each lane's last event: what may be appended to it. */
  private final long[] lastTimes = new long[LANES];
  private int laneCount;
  /** The sorted run and its next event; null when none is left. */
  private World.Event[] run;
  private int runNext;
  private int size;

  /** Queues {@code event}, whose time and sequence are set. */
  void add(World.Event event) {
    size++;
    long time = event.time;
    int best = -1;
    int empty = -1;
    for (int i = 0; i < laneCount; i++) {
      if (lanes[i].isEmpty()) {
        if (empty < 0) {
          empty = i;
        }
      } else if (lastTimes[i] <= time && (best < 0 || lastTimes[i] > lastTimes[best])) {
        best = i;
      }
    }
    if (best < 0 && empty < 0 && laneCount < LANES) {
      empty = laneCount;
      lanes[laneCount++] = new ArrayDeque<>();
    }
    int lane = best >= 0 ? best : empty;
    if (lane < 0) {
      heap.add(event);
      return;
    }
    lanes[lane].addLast(event);
    lastTimes[lane] = time;
  }

  /**
   * Queues {@code events}, whose times and sequences are set, at once: they are sorted here, and
   * the array is the queue's from now on.
   */
  void addSorted(World.Event[] events) {
    if (run != null) {
      for (World.Event e : events) {
        add(e);
      }
      return;
    }
    Arrays.sort(events);
    size += events.length;
    run = events;
    runNext = 0;
    if (events.length == 0) {
      run = null;
    }
  }

  /** Puts back an event just taken with {@link #poll}, which must come first again. */
  void putBack(World.Event event) {
    size++;
    heap.add(event);
  }

  /** Takes the next event, or null. */
  World.Event poll() {
    World.Event best = heap.peek();
    int from = -1;
    for (int i = 0; i < laneCount; i++) {
      World.Event head = lanes[i].peekFirst();
      if (head != null && (best == null || head.compareTo(best) < 0)) {
        best = head;
        from = i;
      }
    }
    World.Event[] r = run;
    if (r != null && (best == null || r[runNext].compareTo(best) < 0)) {
      World.Event next = r[runNext];
      r[runNext++] = null;
      if (runNext == r.length) {
        run = null;
      }
      size--;
      return next;
    }
    if (best == null) {
      return null;
    }
    size--;
    return from < 0 ? heap.poll() : lanes[from].pollFirst();
  }

  int size() {
    return size;
  }
}
