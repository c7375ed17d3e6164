package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The connect window on a clock the test moves: at most its size of places, each given back
 * once; an overdue place freed for the next session (the escape for a protocol whose first
 * reply comes late) and counted; waiters woken in order, a dead wake-up skipped; the report.
 */
class ConnectWindowTest {
  private static final long HOLD = 1_000_000_000L;
  private final long[] now = {5_000L};

  private ConnectWindow.Window window(int size) {
    return ConnectWindow.of(size, Duration.ofNanos(HOLD)).newWindow(() -> now[0]);
  }

  @Test
  void atMostItsSizeHoldPlacesAndEachComesBackOnce() {
    ConnectWindow.Window w = window(3);
    List<ConnectWindow.Slot> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(assertSlot(w.tryEnter()));
    }
    assertNull(w.tryEnter(), "a fourth place in a window of 3");
    held.get(1).release();
    ConnectWindow.Slot fourth = assertSlot(w.tryEnter());
    assertNull(w.tryEnter());
    // A place given back twice (first bytes, then the task's end) is one place.
    held.get(1).release();
    held.get(1).run();
    assertNull(w.tryEnter(), "a place given back twice counted twice");
    fourth.release();
    assertSlot(w.tryEnter());
    ConnectWindow.Report r = w.report();
    assertEquals(5, r.entered());
    assertEquals(0, r.freedUnheard());
    assertFalse(r.stalled());
  }

  @Test
  void aPlaceHeldForTheBoundWithoutWordIsFreedForTheNextSessionAndCounted() {
    ConnectWindow.Window w = window(2);
    ConnectWindow.Slot first = assertSlot(w.tryEnter());
    first.connecting();
    now[0] += 10;
    ConnectWindow.Slot second = assertSlot(w.tryEnter());
    second.connecting();
    assertNull(w.tryEnter());
    // Waits until the oldest place is overdue, no longer.
    assertEquals(HOLD - 10, w.waitNanos());
    now[0] += HOLD - 11;
    assertNull(w.tryEnter(), "freed before the bound");
    assertEquals(1L, w.waitNanos());
    now[0] += 1;
    ConnectWindow.Slot third = assertSlot(w.tryEnter());
    third.connecting();
    assertNull(w.tryEnter(), "only the overdue place is freed");
    // The session whose place was freed hears from its server late: nothing more comes back.
    first.release();
    assertNull(w.tryEnter(), "a freed place came back again with its session's first bytes");
    second.release();
    assertSlot(w.tryEnter());
    third.release();
    ConnectWindow.Report r = w.report();
    assertEquals(1, r.freedUnheard());
    assertTrue(r.stalled());
    assertTrue(r.longestFullNanos() >= HOLD - 10, r.toString());
  }

  /**
   * Review s15 bug 1: a connect rate below size/hold (here 10 a second, window 32, hold 1 s) keeps
   * the window full of sessions waiting for their pacing turns, each turn reserved up to 3.2 s
   * ahead. The hold bound starts at the connect, so none of them is freed unheard when each hears
   * from its server 5 ms after its connect, and the report says no stall.
   */
  @Test
  void aSlowConnectRateFreesNoPlaceAndIsNoStall() {
    ConnectWindow.Window w = window(32);
    ConnectPacing.Pacer pacer = ConnectPacing.perSecond(10, 1).newPacer(() -> now[0]);
    long start = now[0];
    java.util.ArrayDeque<long[]> turns = new java.util.ArrayDeque<>();
    java.util.ArrayDeque<ConnectWindow.Slot> waiting = new java.util.ArrayDeque<>();
    int sessions = 100;
    int begun = 0;
    int connected = 0;
    for (int step = 0; step < 100_000 && connected < sessions; step++) {
      // Every session not yet in takes a place if it can, then reserves its pacing turn.
      while (begun < sessions) {
        ConnectWindow.Slot s = w.tryEnter();
        if (s == null) {
          break;
        }
        begun++;
        waiting.add(s);
        turns.add(new long[] {now[0] + pacer.reserve()});
      }
      // The next turn comes: that session connects and hears from its server 5 ms later.
      long turn = turns.peekFirst()[0];
      if (turn > now[0]) {
        now[0] = turn;
      }
      turns.pollFirst();
      ConnectWindow.Slot s = waiting.pollFirst();
      s.connecting();
      now[0] += 5_000_000L;
      s.release();
      connected++;
    }
    assertEquals(sessions, connected);
    assertTrue(now[0] - start >= 9_000_000_000L, "the pacing did not slow the run: " + (now[0] - start));
    ConnectWindow.Report r = w.report();
    assertEquals(0, r.freedUnheard(), r.toString());
    assertFalse(r.stalled(), r.toString());
  }

  @Test
  void aFreedPlaceWakesTheLongestLiveWaiterAndSkipsOneWhoseWaitEnded() {
    ConnectWindow.Window w = window(1);
    ConnectWindow.Slot holder = assertSlot(w.tryEnter());
    AtomicInteger a = new AtomicInteger();
    AtomicInteger b = new AtomicInteger();
    AtomicInteger c = new AtomicInteger();
    ConnectWindow.Waiter wa = w.waiter();
    ConnectWindow.Waiter wb = w.waiter();
    ConnectWindow.Waiter wc = w.waiter();
    wa.register(a::incrementAndGet);
    wb.register(b::incrementAndGet);
    wc.register(c::incrementAndGet);
    assertEquals(0, a.get() + b.get() + c.get(), "woken while the window is full");
    // a's wait timed out: its wake-up is dead, and must not swallow the place's hand-over.
    wa.waited();
    holder.release();
    assertEquals(0, a.get());
    assertEquals(1, b.get());
    assertEquals(0, c.get());
    ConnectWindow.Slot bs = assertSlot(w.tryEnter());
    wb.leave();
    assertEquals(0, c.get(), "woken while b holds the only place");
    // a waits again, now behind c.
    wa.register(a::incrementAndGet);
    bs.release();
    assertEquals(1, c.get());
    assertEquals(0, a.get());
    // c is cancelled before it takes the place: the wake-up goes on to a.
    wc.leave();
    assertEquals(1, a.get());
    // A place free as one registers: woken at once, inline.
    ConnectWindow.Waiter wd = w.waiter();
    AtomicInteger d = new AtomicInteger();
    wd.register(d::incrementAndGet);
    assertEquals(1, d.get());
    assertEquals(4, w.report().waited());
  }

  @Test
  void noneHasNoWindowAndBadSizesAreRefused() {
    assertFalse(ConnectWindow.NONE.limits());
    assertThrows(IllegalStateException.class, () -> ConnectWindow.NONE.newWindow(System::nanoTime));
    assertThrows(IllegalArgumentException.class, () -> ConnectWindow.of(0, Duration.ofSeconds(1)));
    assertThrows(IllegalArgumentException.class, () -> ConnectWindow.of(1, Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> SessionRunner.builder().connectWindow(-1));
    assertEquals(32, ConnectWindow.DEFAULT.sessions());
    assertEquals(HOLD, ConnectWindow.DEFAULT.holdNanos());
  }

  private static ConnectWindow.Slot assertSlot(ConnectWindow.Slot slot) {
    assertNotNull(slot, "no place in a window with room");
    return slot;
  }
}
