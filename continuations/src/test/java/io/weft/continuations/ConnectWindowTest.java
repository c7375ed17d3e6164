package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weft.transport.spi.HeapExhaustion;
import io.weft.transport.spi.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
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

  /**
   * A waiter's wait is timed from the very reading its {@link ConnectWindow.Waiter#waitNanos()}
   * worked its answer out on, of the window's clock (the run's, which the run's timer reads), so
   * it ends when the oldest place comes due however far the clock moves before the wait is armed;
   * and that reading is spent by the one wait it was taken for (see {@code TimedRegistration}): a
   * second wait armed without a new {@code waitNanos()} is timed from the clock as it is armed.
   */
  @Test
  void aWaitersWaitIsTimedFromTheReadingItsAnswerWasWorkedOutOnAndOnlyOnce() {
    Ticker clock = () -> now[0];
    ConnectWindow.Window w = ConnectWindow.of(1, Duration.ofNanos(HOLD)).newWindow(clock);
    assertSlot(w.tryEnter()).connecting();
    ConnectWindow.Waiter waiter = w.waiter();
    long reading = now[0];
    assertEquals(HOLD, waiter.waitNanos());
    // The clock moves between the answer and the wait's arming (a driver's step).
    now[0] += HOLD / 2;
    assertSame(clock, waiter.timedOn(), "the wait is not timed on the window's clock");
    assertEquals(reading, waiter.timedFrom(), "the wait is not timed from waitNanos()'s reading");
    assertNull(waiter.timedOn(), "a reading timed a second wait");
    waiter.waited();
    long second = now[0];
    assertEquals(HOLD / 2, waiter.waitNanos());
    assertSame(clock, waiter.timedOn());
    assertEquals(second, waiter.timedFrom());
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
    ConnectWindow.Waiter waiter = w.waiter();
    assertEquals(HOLD - 10, waiter.waitNanos());
    waiter.waited();
    now[0] += HOLD - 11;
    assertNull(w.tryEnter(), "freed before the bound");
    assertEquals(1L, waiter.waitNanos());
    waiter.leave();
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
    // Each computes its wait's bound, then registers (as the callers do): a watches the clock.
    wa.waitNanos();
    wa.register(a::incrementAndGet);
    wb.waitNanos();
    wb.register(b::incrementAndGet);
    wc.waitNanos();
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
    wa.waitNanos();
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

  /**
   * Review s15 risk 4: a stalled window (every place held by a session whose server is silent)
   * must not wake every waiter each time a place comes due. 200 sessions wait on a window of 4
   * whose places come due one at a time; each waits as SessionFrame does (try, then
   * {@code Suspend.await(waiter, waiter.waitNanos())}, then {@code waited()}), on the test's clock.
   * A waiter woken that then finds no place is a wasted wake-up: at most one per place freed
   * (the clock handed on to the next waiter), however many wait. Before the fix every waiter
   * waited until the oldest place was due, so each place coming due woke all of them (about
   * 200 x 200 / 2 wasted wake-ups here).
   */
  @Test
  void aPlaceComingDueWakesOneWaiterNotEveryOne() {
    ConnectWindow.Window w = window(4);
    List<Sim> sims = new ArrayList<>();
    // The window fills with sessions whose server never speaks, connected 1 ns apart: their
    // places come due one by one.
    for (int i = 0; i < 4; i++) {
      Sim s = new Sim(w);
      s.step();
      assertNotNull(s.slot);
      now[0] += 1;
    }
    for (int i = 0; i < 200; i++) {
      Sim s = new Sim(w);
      s.step();
      assertNull(s.slot);
      sims.add(s);
    }
    assertEquals(200, w.report().waiting());
    long start = now[0];
    Totals t = drive(sims);
    assertEquals(200, t.placed, "every waiter gets a place");
    assertEquals(200, w.report().freedUnheard());
    assertEquals(0, w.report().waiting());
    // No slower than before: 4 places per hold (none waited for the untimed waits' safety net).
    assertTrue(now[0] - start < 50 * HOLD, "the window admitted fewer than 4 a hold: " + (now[0] - start));
    assertTrue(t.wasted <= t.placed, "wasted wake-ups " + t.wasted + " for " + t.placed + " places freed");
  }

  /** The waiter that watches the clock is cancelled: another takes the clock over, and the run goes on. */
  @Test
  void aCancelledClockWatcherHandsTheClockOn() {
    ConnectWindow.Window w = window(2);
    for (int i = 0; i < 2; i++) {
      Sim s = new Sim(w);
      s.step();
      assertNotNull(s.slot);
    }
    long start = now[0];
    List<Sim> sims = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      Sim s = new Sim(w);
      s.step();
      sims.add(s);
    }
    Sim watcher = null;
    for (Sim s : sims) {
      if (s.due - now[0] < UNTIMED) {
        assertNull(watcher, "two waiters watch the clock");
        watcher = s;
      }
    }
    assertNotNull(watcher, "no waiter watches the clock: a place coming due wakes nobody");
    assertEquals(HOLD, watcher.due - now[0]);
    watcher.cancel();
    sims.remove(watcher);
    Totals t = drive(sims);
    assertEquals(9, t.placed);
    assertEquals(0, w.report().waiting());
    // 2 places a hold from the first hold on: the clock was handed on, not left to the safety net.
    assertEquals(5 * HOLD, now[0] - start);
  }

  /**
   * The clock is left between a newcomer's bound and its registration: the watcher takes the
   * place that came due and finds no one queued to hand the clock to. The newcomer, bound to the
   * safety net, is woken as it registers, takes the clock, and the next place coming due is taken
   * in time (not after 64 holds with no one watching the held places).
   */
  @Test
  void theClockLeftBetweenANewcomersBoundAndItsRegistrationIsTakenOver() {
    ConnectWindow.Window w = window(2);
    // Two places held by silent servers, the second connected 1 ns after the first.
    for (int i = 0; i < 2; i++) {
      Sim s = new Sim(w);
      s.step();
      assertNotNull(s.slot);
      now[0] += 1;
    }
    long start = now[0];
    Sim watcher = new Sim(w);
    watcher.step();
    assertNull(watcher.slot);
    assertTrue(watcher.due - now[0] < UNTIMED, "the first waiter watches the clock");
    Sim newcomer = new Sim(w);
    newcomer.bound();
    assertEquals(UNTIMED, newcomer.due - now[0], "the clock is watched: the newcomer's bound is the safety net");
    // The watcher's wait ends: it frees the overdue place, takes it and leaves (the clock with it).
    now[0] = watcher.due;
    watcher.wait.ended = true;
    watcher.waiter.waited();
    watcher.step();
    assertNotNull(watcher.slot);
    newcomer.register();
    assertTrue(newcomer.wait.woken, "registered with no one watching the clock, and not woken");
    List<Sim> sims = new ArrayList<>();
    sims.add(newcomer);
    Totals t = drive(sims);
    assertEquals(1, t.placed);
    assertEquals(0, w.report().waiting());
    assertTrue(now[0] - start <= HOLD, "the second place came due unwatched: taken after " + (now[0] - start) + " ns");
  }

  /**
   * The watcher leaves with the place that came due and wakes the next waiter to take the clock
   * over; before that one runs, the next held place comes due too, and it takes that place
   * instead. The clock must not stay vacant: a third waiter is woken to take it, and the places
   * just taken are freed in time as they come due (not after 64 holds, the safety net, or
   * whenever a server happens to speak).
   */
  @Test
  void aWaiterWokenToTakeTheClockThatTakesAPlaceInsteadHandsTheClockOn() {
    ConnectWindow.Window w = window(2);
    for (int i = 0; i < 2; i++) {
      Sim s = new Sim(w);
      s.step();
      assertNotNull(s.slot);
      now[0] += 1;
    }
    long start = now[0];
    Sim watcher = new Sim(w);
    watcher.step();
    Sim heir = new Sim(w);
    heir.step();
    Sim third = new Sim(w);
    third.step();
    assertTrue(watcher.due - now[0] < UNTIMED, "the first waiter watches the clock");
    assertEquals(UNTIMED, heir.due - now[0]);
    assertEquals(UNTIMED, third.due - now[0]);
    // The watcher's wait ends as the first place comes due: it takes that place and leaves,
    // waking the next waiter to take the clock over.
    now[0] = watcher.due;
    watcher.wait.ended = true;
    watcher.waiter.waited();
    watcher.step();
    assertNotNull(watcher.slot);
    assertTrue(heir.wait.woken, "the watcher left and woke no one");
    // The heir runs a nanosecond later: the second place is overdue by then, and it takes it.
    now[0] += 1;
    heir.wait.ended = true;
    heir.waiter.waited();
    heir.step();
    assertNotNull(heir.slot, "the second place was overdue and free");
    assertTrue(third.wait.woken, "the clock was left vacant: no one watches the places just taken");
    third.wait.ended = true;
    third.waiter.waited();
    third.step();
    assertNull(third.slot);
    assertTrue(third.due - now[0] < UNTIMED, "the third waiter does not watch the clock");
    List<Sim> sims = new ArrayList<>();
    sims.add(third);
    Totals t = drive(sims);
    assertEquals(1, t.placed);
    assertEquals(0, w.report().waiting());
    // The watcher's place, taken a hold after the first connect (2 ns before start), comes due a
    // hold later, and the third waiter takes it then.
    assertEquals(2 * HOLD - 2, now[0] - start, "the third waiter's place was not taken as it came due");
  }

  /** The heir woken to take the clock over is cancelled before it looks: the clock goes on. */
  @Test
  void aWaiterWokenToTakeTheClockThatIsCancelledHandsTheClockOn() {
    ConnectWindow.Window w = window(2);
    for (int i = 0; i < 2; i++) {
      Sim s = new Sim(w);
      s.step();
      assertNotNull(s.slot);
      now[0] += 1;
    }
    Sim watcher = new Sim(w);
    watcher.step();
    Sim heir = new Sim(w);
    heir.step();
    Sim third = new Sim(w);
    third.step();
    now[0] = watcher.due;
    watcher.wait.ended = true;
    watcher.waiter.waited();
    watcher.step();
    assertNotNull(watcher.slot);
    assertTrue(heir.wait.woken, "the watcher left and woke no one");
    heir.cancel();
    assertTrue(third.wait.woken, "the heir was cancelled and the clock left vacant");
  }

  /**
   * Seeded interleavings in which time goes on while woken sessions wait their turn to run (which
   * {@link #drive} never lets happen), with cancels and places given back: no held place ever
   * comes due unwatched (with no wake-up pending, the next timed wait ends within a hold), and
   * wasted wake-ups stay at most one per place taken or wait given up.
   */
  @Test
  void heldPlacesAreWatchedHoweverWokenSessionsAreScheduled() {
    for (int size : new int[] {1, 2, 4, 8}) {
      for (int seed = 0; seed < 400; seed++) {
        now[0] = 5_000L;
        Random r = new Random(seed * 31L + size);
        ConnectWindow.Window w = window(size);
        for (int i = 0; i < size; i++) {
          new Sim(w).step();
          now[0] += r.nextInt(3);
        }
        List<Sim> sims = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
          Sim s = new Sim(w);
          s.step();
          sims.add(s);
        }
        int placed = 0;
        int wasted = 0;
        int cancelled = 0;
        String at = "size " + size + " seed " + seed;
        for (int round = 0; round < 100_000; round++) {
          List<Sim> woken = new ArrayList<>();
          long due = FOREVER;
          Sim dueSim = null;
          for (Sim s : sims) {
            if (s.slot == null && s.wait != null && s.wait.woken) {
              woken.add(s);
            }
            if (s.slot == null && s.due < due) {
              due = s.due;
              dueSim = s;
            }
          }
          int act = r.nextInt(40);
          if (act == 0) {
            Sim c = sims.get(r.nextInt(sims.size()));
            if (c.slot == null && c.wait != null) {
              c.cancel();
              sims.remove(c);
              cancelled++;
              continue;
            }
          } else if (act == 1) {
            List<Sim> holding = new ArrayList<>();
            for (Sim h : sims) {
              if (h.slot != null && h.slot.state == ConnectWindow.Slot.HOLDING) {
                holding.add(h);
              }
            }
            if (!holding.isEmpty()) {
              holding.get(r.nextInt(holding.size())).slot.release();
              continue;
            }
          }
          if (!woken.isEmpty() && r.nextInt(3) == 0) {
            // Time goes on while the woken wait their turn to run.
            now[0] += 1 + r.nextInt(3);
            continue;
          }
          Sim next;
          if (!woken.isEmpty()) {
            next = woken.get(r.nextInt(woken.size()));
          } else if (dueSim != null) {
            assertTrue(due - now[0] <= HOLD + 2, at + ": held places came due unwatched");
            now[0] = Math.max(now[0], due);
            next = dueSim;
          } else {
            break;
          }
          next.wait.ended = true;
          next.waiter.waited();
          next.step();
          if (next.slot != null) {
            placed++;
          } else {
            wasted++;
          }
        }
        assertEquals(60, placed + cancelled, at);
        assertEquals(0, w.report().waiting(), at);
        assertTrue(wasted <= placed + cancelled, at + ": " + wasted + " wasted wake-ups");
      }
    }
  }

  private static final long FOREVER = Long.MAX_VALUE;
  /** The bound of a wait that does not watch the clock. */
  private static final long UNTIMED = ConnectWindow.Waiter.UNTIMED_HOLDS * HOLD;

  /** What {@link #drive} saw. */
  private static final class Totals {
    int placed;
    int wasted;
  }

  /**
   * Runs the sessions to a place each: wakes the woken ones, else moves the clock to the first
   * wait's end.
   */
  private Totals drive(List<Sim> sims) {
    Totals t = new Totals();
    for (int round = 0; round < 1_000_000; round++) {
      Sim next = null;
      for (Sim s : sims) {
        if (s.slot == null && s.wait != null && s.wait.woken) {
          next = s;
          break;
        }
      }
      if (next == null) {
        long due = FOREVER;
        for (Sim s : sims) {
          if (s.slot == null && s.due < due) {
            due = s.due;
            next = s;
          }
        }
        if (next == null) {
          boolean waiting = false;
          for (Sim s : sims) {
            waiting |= s.slot == null;
          }
          assertFalse(waiting, "stuck: sessions wait, and none is woken or timed");
          return t;
        }
        now[0] = Math.max(now[0], due);
      }
      // Its wait ends (woken, or timed out), and it tries again.
      next.wait.ended = true;
      next.waiter.waited();
      next.step();
      if (next.slot != null) {
        t.placed++;
      } else {
        t.wasted++;
      }
    }
    throw new AssertionError("did not settle");
  }

  /** One wait of a {@link Sim}: its wake-up counts only until the wait ends (as Suspend.await's). */
  private static final class Wait {
    boolean woken;
    boolean ended;
  }

  /** A session as SessionFrame runs it: try for a place, else wait on its waiter and try again. */
  private final class Sim {
    final ConnectWindow.Window w;
    ConnectWindow.Waiter waiter;
    ConnectWindow.Slot slot;
    Wait wait;
    long due = FOREVER;

    Sim(ConnectWindow.Window w) {
      this.w = w;
    }

    void step() {
      slot = w.tryEnter();
      if (slot != null) {
        if (waiter != null) {
          waiter.leave();
        }
        // Connects, and never hears from its server.
        slot.connecting();
        due = FOREVER;
        return;
      }
      bound();
      register();
    }

    /** The first half of a wait: its bound (the caller's {@code waiter.waitNanos()}). */
    void bound() {
      if (waiter == null) {
        waiter = w.waiter();
      }
      due = now[0] + waiter.waitNanos();
    }

    /** The second half: the wait registers ({@code Suspend.await}'s {@code register}). */
    void register() {
      Wait mine = new Wait();
      wait = mine;
      waiter.register(() -> {
        if (!mine.ended) {
          mine.woken = true;
        }
      });
    }

    void cancel() {
      wait.ended = true;
      waiter.waited();
      waiter.leave();
      due = FOREVER;
      wait = null;
    }
  }

  /**
   * One window per listen queue: addresses told apart by IP and port, loopback ones by port alone
   * (one server bound to all addresses, reached through several loopback IPs, has one queue); the
   * report adds the windows up.
   */
  @Test
  void eachListenQueueHasItsOwnWindowAndTheReportAddsThemUp() throws Exception {
    ConnectWindow.Windows ws = ConnectWindow.of(1, Duration.ofNanos(HOLD)).newWindows(() -> now[0]);
    java.net.InetAddress one = java.net.InetAddress.getByName("127.0.0.1");
    java.net.InetAddress two = java.net.InetAddress.getByName("127.0.0.2");
    ConnectWindow.Window a = ws.forAddress(new java.net.InetSocketAddress(one, 7000));
    assertTrue(a == ws.forAddress(new java.net.InetSocketAddress(two, 7000)), "one port on loopback, one queue");
    ConnectWindow.Window b = ws.forAddress(new java.net.InetSocketAddress(one, 7001));
    assertTrue(a != b);
    java.net.InetAddress remote = java.net.InetAddress.getByName("192.0.2.1");
    java.net.InetAddress other = java.net.InetAddress.getByName("192.0.2.2");
    ConnectWindow.Window c = ws.forAddress(new java.net.InetSocketAddress(remote, 7000));
    assertTrue(c != a && c != ws.forAddress(new java.net.InetSocketAddress(other, 7000)));
    assertTrue(c == ws.forAddress(new java.net.InetSocketAddress(remote, 7000)));
    // A full window holds back its own sessions only.
    assertNotNull(a.tryEnter());
    assertNull(a.tryEnter());
    assertNotNull(b.tryEnter());
    a.waiter();
    ConnectWindow.Report r = ws.report();
    assertEquals(4, r.addresses());
    assertEquals(2, r.entered());
    assertEquals(1, r.waited());
    assertEquals(1, r.waiting());
    assertTrue(r.toString().startsWith("connect window 1 for each of 4 addresses: 1 waited"), r.toString());
  }

  /**
   * A full heap makes a wake-up fail (a virtual thread's unpark cannot queue its task): that is
   * the woken session's loss, not the caller's, and it costs the caller one wake-up, not one per
   * waiter. The place given back, or taken by the session that freed an overdue one, is not lost
   * with the error: it stays free for the next session that looks. A clock that the stranded
   * session watched is vacant again, so the next waiter to look watches it, instead of every
   * waiter waiting out its safety net. Before (load5), the hand-over tried waiter after waiter on
   * the caller's thread (in a full heap, full collections for each, often on an event loop) and
   * the clock stayed with the stranded session. Each failed wake-up is reported to
   * {@link HeapExhaustion}, whose watchers abort their runs: a stranded session's run ends no
   * other way. Before load8 the error was swallowed. (The wake-ups here throw the error a full
   * heap throws; everything else is the real window.)
   */
  @Test
  void aWakeUpThatRunsOutOfHeapCostsOnlyItsOwnSessionAndOneTry() {
    // The message a full heap's error carries, so that HeapExhaustion takes it for the heap's end.
    OutOfMemoryError full = new OutOfMemoryError("Java heap space");
    List<String> told = new CopyOnWriteArrayList<>();
    try (HeapExhaustion.Watch watch = HeapExhaustion.watch(told::add)) {
      ConnectWindow.Window w = window(1);
      ConnectWindow.Slot holder = assertSlot(w.tryEnter());
      holder.connecting();
      AtomicInteger tries = new AtomicInteger();
      AtomicInteger woken = new AtomicInteger();
      ConnectWindow.Waiter w1 = w.waiter();
      assertEquals(HOLD, w1.waitNanos(), "the first waiter watches the clock");
      w1.register(() -> {
        tries.incrementAndGet();
        throw full;
      });
      ConnectWindow.Waiter w2 = w.waiter();
      assertEquals(HOLD * ConnectWindow.Waiter.UNTIMED_HOLDS, w2.waitNanos());
      w2.register(() -> {
        tries.incrementAndGet();
        throw full;
      });
      ConnectWindow.Waiter w3 = w.waiter();
      w3.waitNanos();
      w3.register(woken::incrementAndGet);
      try {
        holder.release();
      } catch (OutOfMemoryError e) {
        // Caught here: JUnit takes an OutOfMemoryError for the test JVM's own and ends the run.
        fail("another session's wake-up failed the release: " + e);
      }
      assertEquals(1, tries.get(), "a full heap's wake-ups were tried one after another on the releasing thread");
      // The stranded session's run can end only by an abort: the failed wake-up is reported.
      assertEquals(1, told.size(), "a wake-up that ran out of heap was swallowed, its runs not told");
      assertTrue(told.get(0).contains("handing on a connect-window place"), told.get(0));
      assertEquals(0, woken.get());
      // The place is free, and the clock is no longer the stranded session's: a newcomer takes the
      // place, and the next waiter to look watches the clock (a hold, not the safety net).
      ConnectWindow.Slot next = assertSlot(w.tryEnter());
      next.connecting();
      ConnectWindow.Waiter w4 = w.waiter();
      assertEquals(HOLD, w4.waitNanos(), "the clock stayed with the session whose wake-up failed");
      // It leaves: the clock goes to the next waiter in line, w2, whose wake-up fails too (one try).
      w4.leave();
      assertEquals(2, tries.get());
      assertEquals(2, told.size(), "the second failed wake-up was not reported");
      assertEquals(0, woken.get());
      // The next place given back reaches the waiter behind the two failed wake-ups.
      next.release();
      assertEquals(1, woken.get(), "the waiter behind two failed wake-ups was never handed a place");
      assertSlot(w.tryEnter());
      assertNull(w.tryEnter(), "a place counted twice");

      // A session frees two overdue places and takes one: the wake-up for the other fails. The
      // session keeps its place, the other stays free, and no second waiter is tried.
      ConnectWindow.Window two = window(2);
      ConnectWindow.Slot s1 = assertSlot(two.tryEnter());
      ConnectWindow.Slot s2 = assertSlot(two.tryEnter());
      s1.connecting();
      s2.connecting();
      AtomicInteger twoTries = new AtomicInteger();
      AtomicInteger d = new AtomicInteger();
      ConnectWindow.Waiter t1 = two.waiter();
      t1.waitNanos();
      t1.register(() -> {
        twoTries.incrementAndGet();
        throw full;
      });
      ConnectWindow.Waiter t2 = two.waiter();
      t2.waitNanos();
      t2.register(d::incrementAndGet);
      now[0] += HOLD;
      ConnectWindow.Slot taken = null;
      try {
        taken = assertSlot(two.tryEnter());
      } catch (OutOfMemoryError e) {
        fail("another session's wake-up failed tryEnter() after it took a place: " + e);
      }
      assertEquals(1, twoTries.get());
      assertEquals(3, told.size(), "a failed wake-up in tryEnter's hand-over was not reported");
      assertEquals(0, d.get(), "a second waiter was tried after a failed wake-up");
      assertEquals(2, two.report().freedUnheard());
      assertSlot(two.tryEnter());
      assertNull(two.tryEnter(), "a place counted twice");
      taken.release();
      assertEquals(1, d.get(), "the next place given back did not reach the waiter");
    }
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
