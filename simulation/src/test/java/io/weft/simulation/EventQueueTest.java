package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The event queue gives events in exactly the order of one priority queue by (time, queueing
 * order), whichever of its lanes, its sorted run or its heap holds them: the log, and so the
 * run's hash, must not depend on where an event waited.
 */
class EventQueueTest {
  private static final long HEAL = 5_000_000L;

  @ParameterizedTest
  @ValueSource(longs = {1L, 2L, 3L, 42L, 1234567L})
  void pollsInTimeThenQueueingOrderWhereverAnEventWaits(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    EventQueue queue = new EventQueue();
    PriorityQueue<World.Event> reference = new PriorityQueue<>();
    long[] sequence = new long[1];
    long now = 0L;
    // The start events: random times, queued at once.
    World.Event[] starts = new World.Event[500];
    for (int i = 0; i < starts.length; i++) {
      starts[i] = event(random.nextLong(1_000_000L), sequence);
      reference.add(starts[i]);
    }
    queue.addSorted(starts);
    // A partition's two events, far ahead, as a run queues them first.
    for (long t : new long[] {1_500_000L, HEAL}) {
      World.Event e = event(t, sequence);
      queue.add(e);
      reference.add(e);
    }
    for (int step = 0; step < 20_000; step++) {
      if (random.nextInt(10) < 6) {
        World.Event e = event(now + delay(random, now), sequence);
        queue.add(e);
        reference.add(e);
        continue;
      }
      World.Event expected = reference.poll();
      World.Event got = queue.poll();
      assertSame(expected, got, () -> "step of seed " + seed);
      if (got == null) {
        continue;
      }
      now = got.time;
      if (random.nextInt(20) == 0) {
        // The run stops before this event: it goes back and comes first again.
        queue.putBack(got);
        reference.add(got);
      }
    }
    assertEquals(reference.size(), queue.size());
    for (World.Event expected = reference.poll(); expected != null; expected = reference.poll()) {
      assertSame(expected, queue.poll());
    }
    assertNull(queue.poll());
    assertEquals(0, queue.size());
  }

  /** Fixed latencies and timeouts, random draws, and segments held until the partition heals. */
  private static long delay(SplittableRandom random, long now) {
    switch (random.nextInt(5)) {
      case 0:
        return 50_000L;
      case 1:
        return 30_000_000L;
      case 2:
        return random.nextLong(2_000_000L);
      case 3:
        return now < HEAL ? HEAL + 50_000L - now : 0L;
      default:
        return 0L;
    }
  }

  private static World.Event event(long time, long[] sequence) {
    World.Event e = new World.Event() {
      @Override
      void fire() {}
    };
    e.time = time;
    e.sequence = sequence[0]++;
    return e;
  }
}
