package io.weft.simulation;

import java.util.ArrayDeque;
import java.util.PriorityQueue;

/**
 * The queue of future events, ordered by time, then by the order they were queued in: the order
 * of a priority queue, at the cost of a FIFO for most events.
 *
 * <p>Most events are queued a fixed delay from now: every segment over a link with a fixed
 * latency, every session's timer with one timeout. Time only moves forward, so events queued with
 * the same delay are queued in their order, and a FIFO per delay (a lane) holds them sorted. Up to
 * {@value #LANES} delays have a lane at a time, an empty lane taking the next new delay; the other
 * events (latency draws from a distribution, a start spread, a retry, while the lanes are busy) go
 * to a binary heap. The next event is the least of the
 * heap's head and the lanes' heads, so the order is exactly the heap's alone, and so is the log
 * and its hash. (Weft's {@code WaitTimer} keeps one FIFO per timeout for the same reason.)
 */
final class EventQueue {
  private static final int LANES = 4;

  private final PriorityQueue<World.Event> heap = new PriorityQueue<>();
  private final long[] delays = new long[LANES];
  @SuppressWarnings("unchecked")
  private final ArrayDeque<World.Event>[] lanes = new ArrayDeque[LANES];
  private int laneCount;
  private int size;

  /** Queues {@code event}, whose time and sequence are set, queued at {@code now}. */
  void add(World.Event event, long now) {
    size++;
    long delay = event.time - now;
    int empty = -1;
    for (int i = 0; i < laneCount; i++) {
      if (delays[i] == delay) {
        lanes[i].addLast(event);
        return;
      }
      if (empty < 0 && lanes[i].isEmpty()) {
        empty = i;
      }
    }
    if (empty >= 0) {
      // An empty lane takes the new delay: the start of a run (random start times) does not
      // keep the lanes from the delays that follow.
      delays[empty] = delay;
      lanes[empty].addLast(event);
      return;
    }
    if (laneCount < LANES) {
      delays[laneCount] = delay;
      ArrayDeque<World.Event> lane = new ArrayDeque<>();
      lane.addLast(event);
      lanes[laneCount++] = lane;
      return;
    }
    heap.add(event);
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
