package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A growing connect window ({@link ConnectWindow#DEFAULT}, {@link ConnectWindow#DEEP_BACKLOG})
 * against seeded model servers on a clock the test moves (no wall clock, no sleeps): 10,000
 * sessions, each waiting for a place as SessionFrame does, connecting, queued in the server's
 * listen queue ({@code backlog + 1} deep, as Linux; an arrival to a full queue is dropped and its
 * handshake retried 1 s, then 2 s later), taken by a one-at-a-time accept loop, and heard from a
 * while after. The window grows where the client's own latency, not the server, bounds the rate
 * (a loaded client: each first reply comes tens of milliseconds after its connect); it does not
 * grow on noise where the server's accept loop bounds it; and it never queues more than its cap:
 * 48 of the 51 a Java server's backlog of 50 holds, 256 of the 512 of Redis' and nginx's 511.
 */
class ConnectWindowGrowthTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final int SESSIONS = 10_000;

  /** A loaded client against a fast server: each first reply 40-120 ms after its connect; accepts take 20 us. */
  private static Model fastServer(long seed, int backlog) {
    return new Model(seed, backlog, 20_000L, false, 40 * MS, 120 * MS);
  }

  /**
   * Closed-loop users against a fast server, the ramp of a weft-load run whose users send in a
   * loop: a new user's first reply comes after a round trip of the users already connected,
   * {@code connected / rate} (each 0.75-1.25 times that), plus 1-2 ms; accepts take 20 us.
   */
  private static Model closedLoop(long seed, double rate) {
    Model m = new Model(seed, 511, 20_000L, false, MS, 2 * MS);
    m.perConnectedNanos = 1e9 / rate;
    return m;
  }

  /** A server whose accept loop is the limit: accepts take 2 ms on average (exponential), replies 1-3 ms after. */
  private static Model slowAccept(long seed, int backlog) {
    return new Model(seed, backlog, 2 * MS, true, MS, 3 * MS);
  }

  @Test
  void aGrowingWindowConnectsTenThousandFarSoonerWhenTheClientIsTheLimit() {
    for (long seed = 1; seed <= 5; seed++) {
      fasterThanFixed(seed);
    }
  }

  private static void fasterThanFixed(long seed) {
    Model fixed = fastServer(seed, 511).run(ConnectWindow.of(32, Duration.ofSeconds(1)));
    Model grown = fastServer(seed, 511).run(ConnectWindow.DEEP_BACKLOG);
    System.out.printf("seed %d, fast server, 10,000 sessions: fixed 32 all connected at %.2f s, DEEP_BACKLOG at %.2f s"
        + " (window %d at most, %d at the end, deepest queue %d)%n", seed, fixed.allConnectedAt / 1e9,
        grown.allConnectedAt / 1e9, grown.report.largest(), grown.report.size(), grown.deepestQueue);
    assertEquals(SESSIONS, fixed.connected);
    assertEquals(SESSIONS, grown.connected);
    assertEquals(0, grown.overflows, "handshakes dropped at a full queue");
    assertEquals(0, grown.report.freedUnheard());
    // About 32 / 80 ms = 400 a second with the window fixed: 25 s.
    assertTrue(fixed.allConnectedAt > 20 * S, "the model's fixed window is not the limit: " + fixed.allConnectedAt);
    assertTrue(grown.allConnectedAt < fixed.allConnectedAt / 2.5, "the window did not grow to pay: "
        + grown.allConnectedAt + " against " + fixed.allConnectedAt + "; " + grown.report);
    assertTrue(grown.report.largest() > 4 * 32, "seed " + seed + ": " + grown.report);
    assertTrue(grown.deepestQueue <= ConnectWindow.DEEP_BACKLOG_MAX_SESSIONS, "queue " + grown.deepestQueue);
  }

  /**
   * Where each new user's first reply waits for the round trip of those already connected, a
   * window of {@code w} connects {@code n} users in about {@code n * n / (2 * w * rate)}: the
   * round trip lengthens as users join, so a step's measures read no faster than the base's and
   * growth never pays on them (a window of 32 growing to 256 reached 40 and kept 32: 25.4-25.8 s
   * for 10,000 users at 60,000 replies a second, as the real runs' 29 s with the window at 40-62).
   * {@link ConnectWindow#DEEP_BACKLOG} starts where such a ramp is quick: 128, 6.5 s by the
   * formula, never more than its first size queued.
   */
  @Test
  void closedLoopUsersConnectAsFastAsTheDeepBacklogsFirstSizeAllows() {
    double rate = 60_000.0;
    double bound = (double) SESSIONS * SESSIONS / (2.0 * ConnectWindow.DEEP_BACKLOG_SESSIONS * rate) * S;
    for (long seed = 1; seed <= 3; seed++) {
      Model m = closedLoop(seed, rate).run(ConnectWindow.DEEP_BACKLOG);
      System.out.printf("seed %d, closed-loop users at %.0f replies/s: DEEP_BACKLOG all connected at %.2f s (the"
          + " formula's %.2f s at 128), deepest queue %d; %s%n", seed, rate, m.allConnectedAt / 1e9, bound / 1e9,
          m.deepestQueue, m.report);
      assertEquals(SESSIONS, m.connected);
      assertEquals(0, m.overflows, "seed " + seed + ": handshakes dropped at a full queue");
      assertTrue(m.allConnectedAt < 1.1 * bound, "seed " + seed + ": all connected at " + m.allConnectedAt
          + " ns, past 1.1 x " + bound + "; " + m.report);
      // The invariant is the cap (256 of Redis' 512), whether growth pays here or not.
      assertTrue(m.deepestQueue <= ConnectWindow.DEEP_BACKLOG_MAX_SESSIONS,
          "seed " + seed + ": queue " + m.deepestQueue);
    }
  }

  /**
   * A halving in a closed-loop ramp is grown back: two failed connects, at 2 s and 3.5 s, halve
   * {@link ConnectWindow#DEEP_BACKLOG}'s 128 to 64, then 32; after 2 s with no more trouble it
   * doubles back to 128, a second apart, with no measure that pays (in a closed loop none does),
   * and the ramp ends within twice the formula's time at 128 (review load14 R1: it kept 32 for the
   * rest of the ramp, which then took about three times as long).
   */
  @Test
  void aHalvedDeepBacklogWindowGrowsBackInAClosedLoop() {
    double rate = 60_000.0;
    double bound = (double) SESSIONS * SESSIONS / (2.0 * ConnectWindow.DEEP_BACKLOG_SESSIONS * rate) * S;
    for (long seed = 1; seed <= 3; seed++) {
      Model m = closedLoop(seed, rate);
      m.failAt = new long[] {2 * S, 3 * S + S / 2};
      m.run(ConnectWindow.DEEP_BACKLOG);
      System.out.printf("seed %d, closed-loop users at %.0f replies/s, connects failed at 2 s and 3.5 s: DEEP_BACKLOG"
          + " all connected at %.2f s (the formula's %.2f s at 128), deepest queue %d; %s%n", seed, rate,
          m.allConnectedAt / 1e9, bound / 1e9, m.deepestQueue, m.report);
      assertEquals(SESSIONS, m.connected);
      assertEquals(2, m.failed, "seed " + seed);
      assertEquals(0, m.overflows, "seed " + seed + ": handshakes dropped at a full queue");
      assertEquals(2, m.report.halvings(), "seed " + seed + ": " + m.report);
      assertEquals(ConnectWindow.DEFAULT_SESSIONS, m.report.smallest(), "seed " + seed + ": " + m.report);
      assertEquals(2, m.report.regrowths(), "seed " + seed + ": " + m.report);
      assertTrue(m.report.size() >= ConnectWindow.DEEP_BACKLOG_SESSIONS, "seed " + seed + ": " + m.report);
      assertTrue(m.allConnectedAt < 2 * bound, "seed " + seed + ": all connected at " + m.allConnectedAt
          + " ns, past 2 x " + bound + "; " + m.report);
      assertTrue(m.deepestQueue <= ConnectWindow.DEEP_BACKLOG_MAX_SESSIONS, "seed " + seed + ": queue " + m.deepestQueue);
    }
  }

  /**
   * The regrowth waits for 2 s with no trouble and a second since the last change, doubles, and
   * stops at the first size. On a clock moved by hand: a failed connect halves 128 to 64; a second
   * one half a second later halves nothing (once a second at most) but puts the regrowth off, so a
   * place heard from 2 s after the halving grows nothing and one heard from 2 s after that failure
   * doubles it back to 128. Two failures a second apart, the first 2 s after that regrowth, then
   * halve it to 32 (trouble once a second is not grown back in between); places heard from within
   * the quiet 2 s grow nothing; then one 2 s after the last failure doubles it, 64, and one a second
   * later, 128, and no further.
   */
  @Test
  void aHalvedWindowGrowsBackToItsFirstSizeOnlyAfterTwoQuietSeconds() {
    long[] now = {5_000L};
    ConnectWindow.Window w = ConnectWindow.DEEP_BACKLOG.newWindow(() -> now[0]);
    failOne(w);
    assertEquals(64, w.report().size());
    now[0] += S / 2;
    failOne(w);
    assertEquals(64, w.report().size(), "a failure within the second since the last halving halves nothing");
    now[0] += 3 * S / 2;
    heardOne(w);
    assertEquals(64, w.report().size(), "the failure 1.5 s ago put the regrowth off");
    now[0] += S / 2;
    heardOne(w);
    assertEquals(128, w.report().size());
    // Trouble 2 s after the regrowth (its probation over): the next regrowth waits 2 s again.
    now[0] += 2 * S;
    failOne(w);
    heardOne(w);
    now[0] += S;
    heardOne(w);
    failOne(w);
    assertEquals(32, w.report().size(), "trouble once a second halves down to the least size");
    now[0] += 2 * S - 1;
    heardOne(w);
    assertEquals(32, w.report().size(), "heard within 2 s after the last failure");
    now[0] += 1;
    heardOne(w);
    assertEquals(64, w.report().size());
    now[0] += S - 1;
    heardOne(w);
    assertEquals(64, w.report().size(), "within a second of the last change");
    now[0] += 1;
    heardOne(w);
    assertEquals(128, w.report().size());
    now[0] += 5 * S;
    heardOne(w);
    assertEquals(128, w.report().size(), "no further than the first size without a measure that pays");
    assertEquals(3, w.report().halvings());
    assertEquals(3, w.report().regrowths());
    assertEquals(32, w.report().smallest());
    assertEquals(32, w.report().leastSessions());
    assertTrue(w.report().toString().startsWith("connect window 128 growing to 256 (reached 128, now 128, smallest 32,"
        + " halved 3 times, grew back 3 times): "), w.report()::toString);
    // A window whose least size is its first never grows back: it never goes below it.
    ConnectWindow.Window def = ConnectWindow.DEFAULT.newWindow(() -> now[0]);
    failOne(def);
    now[0] += 3 * S;
    heardOne(def);
    assertEquals(32, def.report().size());
    assertEquals(0, def.report().regrowths());
    assertEquals(32, def.report().smallest());
  }

  /**
   * Trouble that comes back whenever the window is at its first size (a server whose limit lies
   * between 64 and 128 unheard connects: a place is freed unheard, or a connect fails, once the
   * window has been at 128 for 1 s) does not make the window cycle every 3 s for the whole run
   * (review load15 RISK-2: 10 halvings and 9 regrowths in 30 s): each regrowth followed by trouble
   * within its probation doubles the quiet the next one waits for, 2, 4, 8, 16 s. On a clock moved
   * by hand, a place heard from every 100 ms for 30 s: 4 halvings, 3 regrowths, and the window at
   * 128 for 4 of the 30 seconds.
   */
  @Test
  void troubleThatComesBackAtTheFirstSizePutsTheRegrowthOffLongerEachTime() {
    long[] now = {5_000L};
    ConnectWindow.Window w = ConnectWindow.DEEP_BACKLOG.newWindow(() -> now[0]);
    long at128Since = now[0];
    long at128 = 0L;
    for (int tick = 1; tick <= 300; tick++) {
      now[0] += S / 10;
      boolean was128 = w.report().size() == 128;
      if (was128) {
        at128 += S / 10;
      }
      if (was128 && now[0] - at128Since >= S) {
        failOne(w);
      }
      heardOne(w);
      if (!was128 && w.report().size() == 128) {
        at128Since = now[0];
      }
    }
    ConnectWindow.Report r = w.report();
    assertEquals(4, r.halvings(), r::toString);
    assertEquals(3, r.regrowths(), r::toString);
    assertTrue(at128 <= 5 * S, "at 128 for " + at128 + " ns of 30 s; " + r);
  }

  /** A session takes a place, connects and fails. */
  private static void failOne(ConnectWindow.Window w) {
    ConnectWindow.Slot f = w.tryEnter();
    assertNotNull(f);
    f.connecting();
    f.connectFailed();
  }

  /** A session takes a place, connects and is heard from. */
  private static void heardOne(ConnectWindow.Window w) {
    ConnectWindow.Slot h = w.tryEnter();
    assertNotNull(h);
    h.connecting();
    h.run();
  }

  @Test
  void theDefaultGrowsTo48AndNoFurther() {
    for (long seed = 1; seed <= 5; seed++) {
      Model m = fastServer(seed, 50).run(ConnectWindow.DEFAULT);
      assertEquals(SESSIONS, m.connected);
      assertEquals(ConnectWindow.DEFAULT_MAX_SESSIONS, m.report.largest(), "seed " + seed + ": " + m.report);
      assertEquals(0, m.overflows, "seed " + seed);
      assertTrue(m.deepestQueue <= 48, "seed " + seed + ": queue " + m.deepestQueue);
    }
  }

  /**
   * Review BUG 2: against a server whose accept loop is the limit (accept times exponential, a
   * mean of 2 ms), a larger window only lengthens its listen queue, and the noise of the accept
   * times must not ratchet the window up (the reviewer saw 62 in 5 of 5 seeds). In 100 seeds the
   * default never queues more than 48 of the 51 a Java server holds, nor
   * {@link ConnectWindow#DEEP_BACKLOG} more than 256 of 512; no seed keeps more than one step
   * (32 to 40, then tries 50; DEEP_BACKLOG's 128 to 160, then tries 200), and at most 10 of 200
   * runs keep that one (4 do: seeds 22, 27 and 54 growing from 32, 42 from 128).
   */
  @Test
  void noiseDoesNotRatchetTheWindowUpAgainstASlowAcceptServer() {
    int keptOne = 0;
    StringBuilder kept = new StringBuilder();
    for (long seed = 1; seed <= 100; seed++) {
      Model java = slowAccept(seed, 50).run(ConnectWindow.DEFAULT);
      assertEquals(SESSIONS, java.connected);
      assertEquals(0, java.overflows, "seed " + seed + ": handshakes dropped at a Java server's full queue");
      assertTrue(java.deepestQueue <= 48, "seed " + seed + ": queue " + java.deepestQueue + " of 51");
      keptOne += keptAStep(seed, "DEEP_BACKLOG", slowAccept(seed, 511).run(ConnectWindow.DEEP_BACKLOG), kept);
      Model from32 = slowAccept(seed, 511).run(ConnectWindow.DEFAULT.growingTo(256));
      keptOne += keptAStep(seed, "32 growing to 256", from32, kept);
    }
    System.out.println("slow accept, a step kept in " + keptOne + " of 200 runs:" + kept);
    assertTrue(keptOne <= 10, "the window kept a step that did not pay in " + keptOne + " of 200 runs:" + kept);
  }

  /**
   * 1 if the window of {@code m} (against a Redis backlog, 512 queued) kept its first step and
   * tried the next, 0 if it kept none; it must keep no more than one, queue no more than 256 and
   * drop nothing.
   */
  private static int keptAStep(long seed, String name, Model m, StringBuilder kept) {
    assertEquals(SESSIONS, m.connected);
    assertEquals(0, m.overflows, "seed " + seed);
    assertTrue(m.deepestQueue <= 256, "seed " + seed + ": queue " + m.deepestQueue + " of 512");
    int step = m.report.sessions() + m.report.sessions() / 4;
    assertTrue(m.report.largest() <= step + step / 4, "seed " + seed + ", " + name
        + ": the window kept more than one step that did not pay: " + m.report);
    if (m.report.largest() <= step) {
      return 0;
    }
    kept.append(" seed ").append(seed).append(", ").append(name).append(": ").append(m.report.largest()).append('/')
        .append(m.report.size());
    return 1;
  }

  /**
   * A server whose accept loop stops for 3 s: places are freed unheard, the window halves (to
   * 32 at the least, at most once a second), and the queue stays within its backlog.
   */
  @Test
  void aStalledAcceptLoopHalvesTheWindow() {
    Model m = fastServer(3, 511);
    m.stallFrom = 2 * S;
    m.stallTo = 5 * S;
    m.run(ConnectWindow.DEEP_BACKLOG);
    assertEquals(SESSIONS, m.connected);
    assertTrue(m.report.halvings() >= 1, m.report.toString());
    assertTrue(m.report.freedUnheard() > 0, m.report.toString());
    assertTrue(m.deepestQueue <= 512, "queue " + m.deepestQueue);
  }

  @Test
  void aFailedConnectHalvesAtMostOnceASecondAndNeverBelowTheFirstSize() {
    long[] now = {5_000L};
    ConnectWindow.Window w = ConnectWindow.of(4, Duration.ofSeconds(1)).growingTo(64).newWindow(() -> now[0]);
    grow(w, now, 5);
    int before = w.report().size();
    assertTrue(before > 4, "did not grow: " + w.report());
    ConnectWindow.Slot s = w.tryEnter();
    assertNotNull(s);
    s.connecting();
    s.connectFailed();
    assertEquals(Math.max(4, before / 2), w.report().size());
    assertEquals(1, w.report().halvings());
    // A second failure within the second: no second halving.
    now[0] += S - 1;
    ConnectWindow.Slot t = w.tryEnter();
    assertNotNull(t);
    t.connecting();
    t.connectFailed();
    assertEquals(Math.max(4, before / 2), w.report().size());
    // The place went back all the same.
    ConnectWindow.Slot u = w.tryEnter();
    assertNotNull(u);
    u.release();
    // Later ones halve down to the first size, no further.
    for (int i = 0; i < 6; i++) {
      now[0] += S;
      ConnectWindow.Slot f = w.tryEnter();
      assertNotNull(f);
      f.connecting();
      f.connectFailed();
    }
    assertEquals(4, w.report().size());
    // A fixed window does not halve.
    ConnectWindow.Window fixed = ConnectWindow.of(4, Duration.ofSeconds(1)).newWindow(() -> now[0]);
    ConnectWindow.Slot g = fixed.tryEnter();
    g.connecting();
    g.connectFailed();
    assertEquals(4, fixed.report().size());
    assertEquals(0, fixed.report().halvings());
    assertNotNull(fixed.tryEnter());
  }

  /**
   * {@link ConnectWindow#DEEP_BACKLOG} starts at 128 and halves, once a second at most, to the
   * default's first size and no further: a server whose accept loop stalls past the hold gets no
   * more connects per hold from it than from {@link ConnectWindow#DEFAULT}.
   */
  @Test
  void theDeepBacklogWindowStartsAt128AndHalvesTo32() {
    ConnectWindow.Window w = halvedThrice(ConnectWindow.DEEP_BACKLOG, 128, 64, 32, 32);
    assertEquals(2, w.report().halvings());
    assertEquals(128, w.report().sessions());
  }

  /**
   * Capped at 128 (the docs' advice where somaxconn is 128) the deep window halves to 32 as it
   * does capped at 129 (review R2: 128 gave a fixed window that never halved); capped at 64 it
   * halves to 32; capped below 32 it is fixed.
   */
  @Test
  void aCappedDeepBacklogWindowStillHalvesToItsLeastSize() {
    halvedThrice(ConnectWindow.DEEP_BACKLOG.cappedAt(129), 128, 64, 32, 32);
    ConnectWindow.Window at128 = halvedThrice(ConnectWindow.DEEP_BACKLOG.cappedAt(128), 128, 64, 32, 32);
    assertEquals(2, at128.report().halvings());
    assertTrue(at128.report().toString().startsWith(
        "connect window 128 (now 32, smallest 32, halved 2 times, grew back 0 times): "),
        at128.report()::toString);
    halvedThrice(ConnectWindow.DEEP_BACKLOG.cappedAt(64), 64, 32, 32, 32);
    halvedThrice(ConnectWindow.DEEP_BACKLOG.cappedAt(20), 20, 20, 20, 20);
    halvedThrice(ConnectWindow.DEFAULT.cappedAt(256), 32, 32, 32, 32);
  }

  /**
   * {@code cappedAt} only lowers a window's cap (review2 R1: {@code DEFAULT.cappedAt(256)} grew
   * past the 48 that fits a Java server's backlog of 50); {@code growingTo} replaces it, and at a
   * cap equal to the first size the two agree (the least size stays).
   */
  @Test
  void cappedAtNeverRaisesTheCapAndAgreesWithGrowingTo() {
    ConnectWindow def = ConnectWindow.DEFAULT.cappedAt(256);
    assertEquals(32, def.sessions());
    assertEquals(32, def.leastSessions());
    assertEquals(48, def.maxSessions());
    assertEquals(ConnectWindow.DEFAULT.toString(), def.toString());
    assertEquals(256, ConnectWindow.DEEP_BACKLOG.cappedAt(300).maxSessions());
    assertEquals(40, ConnectWindow.DEFAULT.cappedAt(40).maxSessions());
    assertEquals(256, ConnectWindow.DEFAULT.growingTo(256).maxSessions());
    for (int cap : new int[] {128, 129, 200, 256}) {
      ConnectWindow capped = ConnectWindow.DEEP_BACKLOG.cappedAt(cap);
      ConnectWindow grown = ConnectWindow.DEEP_BACKLOG.growingTo(cap);
      assertEquals(grown.toString(), capped.toString());
      assertEquals(32, grown.leastSessions(), grown::toString);
      assertEquals(cap, grown.maxSessions(), grown::toString);
    }
    halvedThrice(ConnectWindow.DEEP_BACKLOG.growingTo(128), 128, 64, 32, 32);
  }

  /**
   * A new window of {@code window} on a clock moved by hand: its first size, then its size after
   * each of three failed connects a second apart.
   */
  private static ConnectWindow.Window halvedThrice(ConnectWindow window, int first, int... sizes) {
    long[] now = {5_000L};
    ConnectWindow.Window w = window.newWindow(() -> now[0]);
    assertEquals(first, w.report().size(), window::toString);
    for (int expected : sizes) {
      now[0] += S;
      ConnectWindow.Slot f = w.tryEnter();
      assertNotNull(f);
      f.connecting();
      f.connectFailed();
      assertEquals(expected, w.report().size(), window + ": " + w.report());
    }
    return w;
  }

  /**
   * A measure the clock did not move through gives no rate and is dropped (review BUG 1): the
   * server gives back one place a millisecond whatever the window's size, so no step pays; while
   * the first step is on trial the clock stands still for three whole measures. Clamped to 1 ns,
   * those measures read as a gain of millions and kept the step (the window went on to 6).
   */
  @Test
  void aMeasureTheClockDidNotMoveThroughIsDropped() {
    long[] now = {5_000L};
    ConnectWindow.Window w = ConnectWindow.of(4, Duration.ofSeconds(1)).growingTo(64).newWindow(() -> now[0]);
    ConnectWindow.Waiter waiter = w.waiter();
    ArrayDeque<ConnectWindow.Slot> held = new ArrayDeque<>();
    // Arrivals to come with the clock standing still: the trial step's settling (5) and 3 measures.
    int frozen = -1;
    for (int i = 0; i < 20_000; i++) {
      ConnectWindow.Slot s;
      while ((s = w.tryEnter()) != null) {
        s.connecting();
        held.add(s);
      }
      if (frozen > 0) {
        frozen--;
      } else {
        now[0] += MS;
      }
      held.poll().run();
      if (frozen < 0 && w.report().size() == 5) {
        frozen = 5 + 3 * ConnectWindow.MEASURE_PLACES;
      }
    }
    waiter.leave();
    assertEquals(0, frozen, "the window never tried a step: " + w.report());
    assertEquals(5, w.report().largest(), w.report().toString());
    assertEquals(4, w.report().size(), w.report().toString());
  }

  /** Places heard from with no session waiting do not grow the window: nothing showed that a larger one pays. */
  @Test
  void aWindowNobodyWaitsForDoesNotGrow() {
    long[] now = {5_000L};
    ConnectWindow.Window w = ConnectWindow.of(4, Duration.ofSeconds(1)).growingTo(64).newWindow(() -> now[0]);
    for (int i = 0; i < 10_000; i++) {
      ConnectWindow.Slot s = w.tryEnter();
      s.connecting();
      now[0] += MS;
      s.run();
    }
    assertEquals(4, w.report().size());
    assertEquals(4, w.report().largest());
  }

  @Test
  void growthIsConfiguredAndReported() {
    assertEquals(32, ConnectWindow.DEFAULT.sessions());
    assertEquals(48, ConnectWindow.DEFAULT.maxSessions());
    assertEquals(32, ConnectWindow.DEFAULT.leastSessions());
    assertEquals(128, ConnectWindow.DEEP_BACKLOG.sessions());
    assertEquals(32, ConnectWindow.DEEP_BACKLOG.leastSessions());
    assertEquals(256, ConnectWindow.DEEP_BACKLOG.maxSessions());
    assertEquals("128 sessions growing to 256 (halving to 32 at the least), held 1000 ms at most",
        ConnectWindow.DEEP_BACKLOG.toString());
    // Grown to its first size and no further, it does not grow and still halves to its least size.
    assertEquals("128 sessions (halving to 32 at the least), held 1000 ms at most",
        ConnectWindow.DEEP_BACKLOG.growingTo(128).toString());
    assertThrows(IllegalArgumentException.class, () -> ConnectWindow.DEEP_BACKLOG.growingTo(127));
    ConnectWindow fixed = ConnectWindow.of(16, Duration.ofSeconds(2));
    assertEquals(16, fixed.maxSessions());
    assertTrue(!fixed.grows());
    assertEquals("16 sessions, held 2000 ms at most", fixed.toString());
    ConnectWindow capped = ConnectWindow.DEFAULT.growingTo(40).withHold(Duration.ofMillis(300));
    assertEquals(40, capped.maxSessions());
    assertEquals(300 * MS, capped.holdNanos());
    assertEquals("32 sessions growing to 40, held 300 ms at most", capped.toString());
    assertThrows(IllegalArgumentException.class, () -> ConnectWindow.DEFAULT.growingTo(31));
    assertThrows(IllegalStateException.class, () -> ConnectWindow.NONE.growingTo(31));
    assertEquals("connect window 32 growing to 48 (reached 32, now 32, halved 0 times): 0 waited, full for 0 ms"
        + " at most, 0 freed unheard after 1000 ms", ConnectWindow.DEFAULT.newWindow(() -> 0L).report().toString());
  }

  /**
   * Drives {@code w} with always one session waiting and each place heard from 1 ms after its
   * connect (the window is the limit) until it took {@code steps} steps.
   */
  private static void grow(ConnectWindow.Window w, long[] now, int steps) {
    ConnectWindow.Waiter waiter = w.waiter();
    ArrayDeque<ConnectWindow.Slot> held = new ArrayDeque<>();
    for (int i = 0; i < 100_000 && w.report().size() < 4 + steps; i++) {
      ConnectWindow.Slot s;
      while ((s = w.tryEnter()) != null) {
        s.connecting();
        held.add(s);
      }
      // The window is full: every held place is heard from 1 ms later, together.
      now[0] += MS;
      while (!held.isEmpty()) {
        held.poll().run();
      }
    }
    waiter.leave();
    while (!held.isEmpty()) {
      held.poll().release();
    }
  }

  /** A seeded model of one server and the run's sessions, on its own moved clock. */
  private static final class Model {
    final Random random;
    final int queueDepth;
    final long acceptNanos;
    final boolean exponential;
    final long replyMin;
    final long replyMax;
    final long[] now = {0L};
    final PriorityQueue<Event> events = new PriorityQueue<>();
    long seq;
    ConnectWindow.Window window;
    final ArrayDeque<Session> listenQueue = new ArrayDeque<>();
    boolean accepting;
    /** Added to each first reply for every session connected before it (a closed loop's round trip). */
    double perConnectedNanos;
    long stallFrom = Long.MAX_VALUE;
    long stallTo = Long.MAX_VALUE;
    /** The first connect at or after each of these times fails (refused: its place given back, retried 10 ms later). */
    long[] failAt = {};
    int failed;
    int connected;
    long allConnectedAt;
    int deepestQueue;
    int overflows;
    ConnectWindow.Report report;

    Model(long seed, int backlog, long acceptNanos, boolean exponential, long replyMin, long replyMax) {
      this.random = new Random(seed);
      this.queueDepth = backlog + 1;
      this.acceptNanos = acceptNanos;
      this.exponential = exponential;
      this.replyMin = replyMin;
      this.replyMax = replyMax;
    }

    Model run(ConnectWindow config) {
      window = config.newWindow(() -> now[0]);
      for (int i = 0; i < SESSIONS; i++) {
        Session s = new Session();
        at(0L, s::tryPlace);
      }
      for (long n = 0; !events.isEmpty(); n++) {
        assertTrue(n < 50_000_000L, "the model did not settle");
        Event e = events.poll();
        now[0] = e.time;
        e.action.run();
      }
      report = window.report();
      assertEquals(0, report.waiting());
      return this;
    }

    void at(long time, Runnable action) {
      events.add(new Event(time, seq++, action));
    }

    /** A SYN reaches the listen queue: queued if there is room, else dropped and retried (1 s, then 2 s). */
    void arrive(Session s, int attempt) {
      if (listenQueue.size() >= queueDepth) {
        overflows++;
        at(now[0] + (attempt == 0 ? S : 2 * S), () -> arrive(s, attempt + 1));
        return;
      }
      listenQueue.add(s);
      deepestQueue = Math.max(deepestQueue, listenQueue.size());
      if (!accepting) {
        accepting = true;
        at(now[0] + acceptTime(), this::accepted);
      }
    }

    long acceptTime() {
      long t = exponential ? (long) (-Math.log(1.0 - random.nextDouble()) * acceptNanos) : acceptNanos;
      return Math.max(1L, t);
    }

    /** The accept loop took the queue's head; its reply reaches the client a while later. */
    void accepted() {
      if (now[0] >= stallFrom && now[0] < stallTo) {
        at(stallTo, this::accepted);
        return;
      }
      Session s = listenQueue.poll();
      long reply = replyMin + (long) (random.nextDouble() * (replyMax - replyMin));
      if (perConnectedNanos > 0.0) {
        reply += (long) (connected * perConnectedNanos * (0.75 + 0.5 * random.nextDouble()));
      }
      at(now[0] + reply, s::heard);
      if (listenQueue.isEmpty()) {
        accepting = false;
      } else {
        at(now[0] + acceptTime(), this::accepted);
      }
    }

    /** A session as SessionFrame runs it: a place (waiting as it does), its connect, its first reply. */
    final class Session {
      ConnectWindow.Waiter waiter;
      ConnectWindow.Slot slot;
      /** The wait under way; a wake-up or timeout of an ended one is ignored. */
      int waitNumber;
      boolean waitEnded = true;

      void tryPlace() {
        slot = window.tryEnter();
        if (slot != null) {
          if (waiter != null) {
            waiter.leave();
            waiter = null;
          }
          slot.connecting();
          if (failed < failAt.length && now[0] >= failAt[failed]) {
            failed++;
            ConnectWindow.Slot refused = slot;
            at(now[0] + 20_000L, () -> {
              refused.connectFailed();
              at(now[0] + 10 * MS, this::tryPlace);
            });
            return;
          }
          at(now[0] + 20_000L, () -> arrive(this, 0));
          return;
        }
        if (waiter == null) {
          waiter = window.waiter();
        }
        long bound = waiter.waitNanos();
        int number = ++waitNumber;
        waitEnded = false;
        waiter.register(() -> at(now[0], () -> endWait(number)));
        if (bound < Long.MAX_VALUE - now[0]) {
          at(now[0] + bound, () -> endWait(number));
        }
      }

      void endWait(int number) {
        if (number != waitNumber || waitEnded) {
          return;
        }
        waitEnded = true;
        waiter.waited();
        tryPlace();
      }

      void heard() {
        slot.run();
        connected++;
        allConnectedAt = now[0];
      }
    }
  }

  private static final class Event implements Comparable<Event> {
    final long time;
    final long seq;
    final Runnable action;

    Event(long time, long seq, Runnable action) {
      this.time = time;
      this.seq = seq;
      this.action = action;
    }

    @Override
    public int compareTo(Event o) {
      return time != o.time ? Long.compare(time, o.time) : Long.compare(seq, o.seq);
    }
  }
}
