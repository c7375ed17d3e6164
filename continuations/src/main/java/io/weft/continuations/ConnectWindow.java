package io.weft.continuations;

import io.weft.continuations.spi.TimedRegistration;
import io.weft.transport.spi.HeapExhaustion;
import io.weft.transport.spi.Ticker;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * How many sessions of a run may be connected, or connecting, without having heard from their
 * server yet: at most {@link #sessions()}; the others wait before they connect. Beside the connect
 * rate ({@link ConnectPacing}), it is what keeps a first run against a stock server whole while
 * the server accepts within the hold bound (below).
 *
 * <p>Why it holds: a connection in a server's listen queue is one its accept loop has not taken,
 * so the server cannot have sent on it; every such connection is one of the run's sessions not
 * yet heard from. Linux holds {@code backlog + 1} completed handshakes there, 51 for Java's
 * default backlog of 50; past that it drops the handshake's last packet and the connection waits
 * for the server's SYN-ACK retransmits (1, 2, 4, 8 s), or its client gives up. With at most
 * {@value #DEFAULT_SESSIONS} unheard-from sessions ({@link #DEFAULT}) the run never puts more than
 * that many in the queue as long as the server accepts each connection within
 * {@link #holdNanos()} of its connect: a slow server delays the run, and loses nothing. A server
 * whose accept loop stalls for longer gets more: places held that long are freed (the escape
 * below), up to {@link #sessions()} more connects per hold go to a queue nobody drains, and past
 * its depth handshakes are dropped as without a window; the run's {@link Report#freedUnheard()}
 * says it happened. A session takes its place before its pacing turn and its connect (a SYN in
 * flight lands in the queue), and gives it back when:
 * <ul>
 *   <li>its transport first receives bytes ({@code ReportsArrival}, every Weft transport over a
 *       socket): the greeting of a server-first protocol (SMTP), the first reply of a
 *       client-first one (Redis, HTTP);
 *   <li>its connect fails, or its task ends, whichever comes first (a task that never reads holds
 *       its place to its end; a closed connection still queued stays in the queue until the
 *       server accepts it, so for tasks that never read the rate is the limit);
 *   <li>or, the escape, it has held its place for {@link #holdNanos()} from its connect
 *       ({@link Slot#connecting()}; the wait for its pacing turn does not count) without hearing
 *       from the server: the place is freed for the next session (the session itself goes on),
 *       and the run counts it ({@link Report#freedUnheard()}). That is what a protocol whose first
 *       reply comes
 *       late meets (a blocking pop, a long poll, a reply that waits for another session, a
 *       server that delays its greeting on purpose), and a server whose accept loop stalls: the
 *       window then admits at most {@link #sessions()} sessions per {@link #holdNanos()}, slow but
 *       never stuck. Such a protocol's run is better off with {@link #NONE}.
 * </ul>
 * The wait for a place is not counted against a session's timeout: its session deadline starts
 * with its connect ({@code Timeout}), after the wait. Only TCP is windowed (an in-VM pipe has no
 * listen queue), and not {@code SYNC}, which opens one connection at a time. A run over several
 * addresses has a window for each listening socket it reaches ({@link Windows}): each has its own
 * listen queue, so a silent or slow server among them holds its own sessions' places only, and
 * the connects to the others go on (the charter's "a hostile peer costs its own session only").
 * Addresses are told apart by IP and port; on loopback by port alone, since a server bound to
 * {@code 0.0.0.0:6379} and reached as {@code 127.0.0.1:6379 .. 127.0.0.4:6379} (for more
 * ephemeral ports) has one queue. A remote server reached through several of its own IPs on one
 * port also has one queue but gets a window per IP: give such a run a smaller window.
 *
 * <p><b>Growth.</b> A window may grow ({@link #growingTo(int)}; {@link #DEFAULT} to
 * {@value #DEFAULT_MAX_SESSIONS}, {@link #DEEP_BACKLOG} to {@value #DEEP_BACKLOG_MAX_SESSIONS}) while
 * growing pays. While sessions wait for a place, the window measures how fast places come back
 * with a first arrival (a session heard from): a measure counts {@value #MEASURE_PLACES} such
 * places (the window's size if that is more), leaving out the window's worth after a change (the
 * sessions that took their place before it). After two measures at its size it tries a step of a
 * quarter more places. The step is dropped at the first measure whose mean rate is not an eighth
 * above the base size's, and kept only once it is clearly faster: an eighth and
 * {@link #CLEAR_BY} standard errors more, the spread of the measures at both sizes giving the
 * error (at least {@value #MIN_DEGREES} degrees of freedom, a spread of at least
 * {@link #MIN_SPREAD}), within {@value #MAX_TRIAL_MEASURES} measures. So a window that is the limit
 * (a loaded client: each first reply comes tens of milliseconds after its connect) grows, while
 * against a server whose accept loop is the limit, where a larger window only lengthens its
 * listen queue, the noise of its accept times does not ratchet the window up (a seeded model with
 * exponential accept times kept one step in 3 of 100 seeds, never two:
 * {@code ConnectWindowGrowthTest}). A step dropped waits 1, 2, 4 .. {@value #MAX_BACKOFF_MEASURES}
 * measures before the next is tried; a step is also dropped when no session waits. The window
 * halves, never below {@link #leastSessions()} and at most once a second, on a failed connect
 * ({@link Slot#connectFailed()}) or a place freed unheard. Halved below its first size (only
 * {@link #DEEP_BACKLOG} and the windows made from it start above their least size), it grows back
 * towards the first size with no measure, doubling, as places come back heard from once
 * {@link #REGROWTH_QUIET_NANOS} have passed with no such trouble (doubled, up to 64 s, each time
 * trouble follows a regrowth closely) and a {@link #HALVING_GAP_NANOS} since its last change:
 * in a closed loop no step pays on its measures, and a halved window would keep its half for the
 * rest of the ramp. It never passes {@link #maxSessions()},
 * which must be below the server's backlog as {@link #sessions()} must: the halving comes after
 * the fact, and on Linux a connect to a full listen queue does not fail, its handshake is only
 * dropped and retried.
 *
 * <p>Immutable.
 */
public final class ConnectWindow {
  /** Sessions of {@link #DEFAULT} at first: below Java's default backlog of 50 (51 queued), with room to spare. */
  public static final int DEFAULT_SESSIONS = 32;
  /**
   * How far {@link #DEFAULT} grows: 48, below the 51 connections Linux queues for Java's default
   * backlog of 50.
   */
  public static final int DEFAULT_MAX_SESSIONS = 48;
  /**
   * Sessions of {@link #DEEP_BACKLOG} at first: 128, below the 129 connections Linux queues for a
   * backlog of 511 where {@code net.core.somaxconn} caps it at 128 (the default before Linux 5.4),
   * and a quarter of the 512 it queues where it does not. A
   * closed-loop user's first reply comes after the replies to the users already connected (a
   * round trip of theirs: users / rate), so a window of {@code w} connects {@code n} users in
   * about {@code n * n / (2 * w * rate)}: 10,000 redis users at 60,000 replies a second take
   * 26 s at 32, 6.5 s at 128 (the first size is what a ramp gets where growing does not pay on
   * its measures: the round trip lengthens as users join, which reads as no gain). It halves to
   * {@value #DEFAULT_SESSIONS} at the least, as {@link #DEFAULT} does, so that a server whose
   * accept loop stalls gets as few connects per hold as from it.
   */
  public static final int DEEP_BACKLOG_SESSIONS = 128;
  /**
   * How far {@link #DEEP_BACKLOG} grows: 256, half of the 512 connections Linux queues for
   * Redis' and nginx's default backlog of 511, where {@code net.core.somaxconn} allows it (Linux
   * caps every backlog at it: 4096 by default since 5.4, 128 before, a queue of 129).
   */
  public static final int DEEP_BACKLOG_MAX_SESSIONS = 256;
  /** How long a place is held without word from the server, in {@link #DEFAULT}: 1 s. */
  public static final long DEFAULT_HOLD_NANOS = 1_000_000_000L;
  /** The fewest places given back that a growing window's measure counts. */
  public static final int MEASURE_PLACES = 128;
  /**
   * The most measures a step is on trial: it is dropped at the first whose mean rate is not an
   * eighth above the base's, kept once the gain is an eighth and {@link #CLEAR_BY} standard
   * errors more.
   */
  public static final int MAX_TRIAL_MEASURES = 6;
  /** Standard errors beyond an eighth a step's gain must be to be kept. */
  public static final double CLEAR_BY = 2.5;
  /** The fewest measures, less one at each size, a step's gain is judged on (their spread's degrees of freedom). */
  public static final int MIN_DEGREES = 4;
  /** The least spread of the measures (relative standard deviation) a gain is judged by. */
  public static final double MIN_SPREAD = 0.02;
  /** Measures the base size keeps before it forgets half. */
  public static final int BASE_MEASURES = 8;
  /** The most measures a growing window waits before it tries a step again after one that did not pay. */
  public static final int MAX_BACKOFF_MEASURES = 16;
  /** The least time between two halvings of a growing window: 1 s. */
  public static final long HALVING_GAP_NANOS = 1_000_000_000L;
  /**
   * How long a window halved below its first size must go without a failed connect or a place
   * freed unheard before it grows back, at first: 2 s, two halving gaps, so that trouble once a
   * second halves it down to its least size rather than see it regrow in between. Doubled, up to
   * {@link #MAX_REGROWTH_QUIET_NANOS}, each time trouble comes within that long (or two holds, if
   * longer) of a regrowth: the size it grew back to is then likely the trouble's cause, and a server
   * whose limit lies below the first size is not visited there every few seconds for a whole run.
   * Back to 2 s once a regrowth has gone that long without trouble.
   */
  public static final long REGROWTH_QUIET_NANOS = 2 * HALVING_GAP_NANOS;
  /** The longest quiet a halved window waits for before it grows back: 64 s. */
  public static final long MAX_REGROWTH_QUIET_NANOS = 32 * REGROWTH_QUIET_NANOS;

  /** No window: sessions connect at their pacing turn, however many are unheard from. */
  public static final ConnectWindow NONE = new ConnectWindow(0, 0, 0, 0L);
  /**
   * {@value #DEFAULT_SESSIONS} sessions growing to {@value #DEFAULT_MAX_SESSIONS} while growing
   * pays (see Growth, above), each place freed after at most 1 s without word from the server.
   * For any server with a listen backlog of 50 or more (Java's default).
   */
  public static final ConnectWindow DEFAULT = new ConnectWindow(DEFAULT_SESSIONS, DEFAULT_SESSIONS,
      DEFAULT_MAX_SESSIONS, DEFAULT_HOLD_NANOS);
  /**
   * {@value #DEEP_BACKLOG_SESSIONS} sessions growing to {@value #DEEP_BACKLOG_MAX_SESSIONS} while
   * growing pays and halving to {@value #DEFAULT_SESSIONS} at the least, each place freed after at
   * most 1 s without word from the server. Only for a server known to have a backlog of 511
   * (Redis' and nginx's default): its first size fits the
   * 129 a {@code net.core.somaxconn} of 128 (before Linux 5.4) leaves of it, its growth needs a
   * {@code somaxconn} of 511 or more; against Java's default of 50 it overflows the listen queue.
   */
  public static final ConnectWindow DEEP_BACKLOG = new ConnectWindow(DEEP_BACKLOG_SESSIONS, DEFAULT_SESSIONS,
      DEEP_BACKLOG_MAX_SESSIONS, DEFAULT_HOLD_NANOS);

  private final int sessions;
  private final int leastSessions;
  private final int maxSessions;
  private final long holdNanos;

  private ConnectWindow(int sessions, int leastSessions, int maxSessions, long holdNanos) {
    this.sessions = sessions;
    this.leastSessions = leastSessions;
    this.maxSessions = maxSessions;
    this.holdNanos = holdNanos;
  }

  /**
   * At most {@code sessions} sessions connected, or connecting, and not yet heard from; a place
   * held longer than {@code hold} without word from the server is freed for the next session.
   *
   * @param sessions the window, at least 1 (use {@link #NONE} for none); below the server's
   *     listen backlog
   * @param hold how long a place is held at most, more than 0
   * @return the window
   * @throws IllegalArgumentException if {@code sessions < 1} or {@code hold} is not positive
   */
  public static ConnectWindow of(int sessions, Duration hold) {
    if (sessions < 1) {
      throw new IllegalArgumentException("sessions < 1: " + sessions + " (ConnectWindow.NONE for no window)");
    }
    return new ConnectWindow(sessions, sessions, sessions, nanos(hold));
  }

  private static long nanos(Duration hold) {
    Objects.requireNonNull(hold, "hold");
    if (hold.isNegative() || hold.isZero()) {
      throw new IllegalArgumentException("hold <= 0: " + hold);
    }
    try {
      return hold.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  /**
   * This window, growing from {@link #sessions()} to at most {@code maxSessions} while growing
   * pays (see the class comment), and halving to {@link #leastSessions()} as before;
   * {@code maxSessions == sessions()} for a window that does not grow (it still halves, if its
   * least size is below its first: {@code DEEP_BACKLOG.growingTo(128)} is 128 halving to 32, as
   * {@code DEEP_BACKLOG.cappedAt(128)} is; use {@link #of(int, Duration)} for a fixed window).
   * It replaces the window's cap, raising or lowering it (use {@link #cappedAt(int)} to lower it
   * only).
   *
   * @param maxSessions how far it may grow; below the server's listen backlog
   * @return the window
   * @throws IllegalArgumentException if {@code maxSessions < sessions()}
   * @throws IllegalStateException for {@link #NONE}
   */
  public ConnectWindow growingTo(int maxSessions) {
    if (!limits()) {
      throw new IllegalStateException("ConnectWindow.NONE has no window");
    }
    if (maxSessions < sessions) {
      throw new IllegalArgumentException("maxSessions < sessions: " + maxSessions + " < " + sessions);
    }
    return new ConnectWindow(sessions, leastSessions, maxSessions, holdNanos);
  }

  /**
   * This window with at most {@code cap} sessions unheard from at once, where that is below its
   * own cap; it never raises the cap ({@code DEFAULT.cappedAt(256)} is {@code DEFAULT}, whose 48
   * fits a Java server's backlog of 50; {@link #growingTo(int)} raises it). Its first size, least
   * size and cap are each lowered to {@code cap} where above it: {@link #DEEP_BACKLOG} capped at
   * 129 is 128 growing to 129, at 128 it is 128 never growing, both halving to
   * {@value #DEFAULT_SESSIONS}; capped at 64 it is 64 halving to 32; capped at or below its least
   * size it is that size, fixed.
   *
   * @param cap the most sessions unheard from at once, at least 1; below the server's listen backlog
   * @return the window
   * @throws IllegalArgumentException if {@code cap < 1}
   * @throws IllegalStateException for {@link #NONE}
   */
  public ConnectWindow cappedAt(int cap) {
    if (!limits()) {
      throw new IllegalStateException("ConnectWindow.NONE has no window");
    }
    if (cap < 1) {
      throw new IllegalArgumentException("cap < 1: " + cap);
    }
    return new ConnectWindow(Math.min(sessions, cap), Math.min(leastSessions, cap), Math.min(maxSessions, cap),
        holdNanos);
  }

  /**
   * This window with places held at most {@code hold} without word from the server.
   *
   * @param hold how long a place is held at most, more than 0
   * @return the window
   * @throws IllegalArgumentException if {@code hold} is not positive
   * @throws IllegalStateException for {@link #NONE}
   */
  public ConnectWindow withHold(Duration hold) {
    if (!limits()) {
      throw new IllegalStateException("ConnectWindow.NONE has no window");
    }
    return new ConnectWindow(sessions, leastSessions, maxSessions, nanos(hold));
  }

  /**
   * The window's size at first; 0 for {@link #NONE}.
   *
   * @return how many sessions may be unheard from at once at first
   */
  public int sessions() {
    return sessions;
  }

  /**
   * The floor a halving stops at: {@value #DEFAULT_SESSIONS} for {@link #DEEP_BACKLOG} and the
   * windows made from it by {@link #growingTo(int)} or {@link #cappedAt(int)} (the cap itself
   * when below 32); for any other window {@link #sessions()}, i.e. it does not halve below its
   * first size; 0 for {@link #NONE}.
   *
   * @return how many sessions may be unheard from at once at the least
   */
  public int leastSessions() {
    return leastSessions;
  }

  /**
   * How far the window may grow; {@link #sessions()} for a fixed window, 0 for {@link #NONE}.
   *
   * @return the most sessions it lets be unheard from at once
   */
  public int maxSessions() {
    return maxSessions;
  }

  /**
   * Whether it may grow.
   *
   * @return {@code maxSessions() > sessions()}
   */
  public boolean grows() {
    return maxSessions > sessions;
  }

  /**
   * How long a place is held at most without word from the server; 0 for {@link #NONE}.
   *
   * @return the bound, in nanoseconds
   */
  public long holdNanos() {
    return holdNanos;
  }

  /**
   * Whether this bounds anything.
   *
   * @return false for {@link #NONE}
   */
  public boolean limits() {
    return sessions > 0;
  }

  /**
   * New windows for one run, one per server address, reading {@code ticker}.
   *
   * @param ticker the clock the windows read
   * @return the windows
   * @throws IllegalStateException for {@link #NONE}
   */
  public Windows newWindows(Ticker ticker) {
    if (!limits()) {
      throw new IllegalStateException("ConnectWindow.NONE has no window");
    }
    return new Windows(this, Objects.requireNonNull(ticker, "ticker"));
  }

  /**
   * A new window for one run, reading {@code ticker}.
   *
   * @param ticker the clock the window reads
   * @return the window
   * @throws IllegalStateException for {@link #NONE}
   */
  public Window newWindow(Ticker ticker) {
    if (!limits()) {
      throw new IllegalStateException("ConnectWindow.NONE has no window");
    }
    return new Window(this, Objects.requireNonNull(ticker, "ticker"));
  }

  @Override
  public String toString() {
    if (!limits()) {
      return "none";
    }
    String format = !grows()
        ? leastSessions < sessions ? "%d sessions (halving to %4$d at the least), held %3$d ms at most"
            : "%d sessions, held %3$d ms at most"
        : leastSessions < sessions ? "%d sessions growing to %d (halving to %4$d at the least), held %3$d ms at most"
        : "%d sessions growing to %d, held %d ms at most";
    return String.format(Locale.ROOT, format, sessions, maxSessions, holdNanos / 1_000_000L, leastSessions);
  }

  /**
   * One run's windows: one {@link Window} per server address, each of the configured size, since
   * each server has its own listen queue. Made as the run's sessions are; thread-safe.
   */
  public static final class Windows {
    private final ConnectWindow config;
    private final Ticker ticker;
    /** By listen queue (see key); guarded by itself. */
    private final Map<Object, Window> byAddress = new LinkedHashMap<>();

    Windows(ConnectWindow config, Ticker ticker) {
      this.config = config;
      this.ticker = ticker;
    }

    /**
     * The window of the listening socket at {@code address}, made at its first call: call it as
     * the sessions are made, not in a session's path. Loopback addresses with one port share a
     * window (see {@link ConnectWindow}).
     *
     * @param address the server's address
     * @return its window
     */
    public Window forAddress(SocketAddress address) {
      Object key = key(Objects.requireNonNull(address, "address"));
      synchronized (byAddress) {
        Window w = byAddress.get(key);
        if (w == null) {
          w = new Window(config, ticker);
          byAddress.put(key, w);
        }
        return w;
      }
    }

    /** One listen queue's key: the port alone on loopback, else the resolved IP and port, else the address. */
    private static Object key(SocketAddress address) {
      if (address instanceof InetSocketAddress) {
        InetSocketAddress inet = (InetSocketAddress) address;
        InetAddress ip = inet.getAddress();
        if (ip != null && ip.isLoopbackAddress()) {
          return inet.getPort();
        }
        if (ip != null) {
          return new InetSocketAddress(ip, inet.getPort());
        }
      }
      return address;
    }

    /**
     * What the windows did so far, together: places, waits and places freed summed, the longest
     * full stretch of any one; {@link Report#addresses()} says over how many.
     *
     * @return the report
     */
    public Report report() {
      List<Window> all;
      synchronized (byAddress) {
        all = new ArrayList<>(byAddress.values());
      }
      long entered = 0L;
      long waited = 0L;
      long freed = 0L;
      long longest = 0L;
      int waiting = 0;
      int size = all.isEmpty() ? config.sessions : 0;
      int largest = size;
      int smallest = size;
      long halvings = 0L;
      long regrowths = 0L;
      long failed = 0L;
      for (Window w : all) {
        Report r = w.report();
        entered += r.entered();
        waited += r.waited();
        freed += r.freedUnheard();
        longest = Math.max(longest, r.longestFullNanos());
        waiting += r.waiting();
        size = Math.max(size, r.size());
        largest = Math.max(largest, r.largest());
        smallest = smallest == 0 ? r.smallest() : Math.min(smallest, r.smallest());
        halvings += r.halvings();
        regrowths += r.regrowths();
        failed += r.connectsFailed();
      }
      return new Report(config.sessions, config.leastSessions, config.maxSessions, config.holdNanos, entered, waited,
          freed, longest, waiting, all.size(), size, largest, smallest, halvings, regrowths, failed);
    }
  }

  /**
   * One run's window for one server. A session takes a place with {@link #tryEnter()}; when none is free it
   * waits on its own {@link Waiter} ({@code Suspend.await(waiter, waiter.waitNanos())}) and tries
   * again. Thread-safe; its lock is held for a few field updates only, never while a wake-up
   * runs.
   */
  public static final class Window {
    /**
     * Where a failed wake-up was met, for {@link HeapExhaustion}: not a constant, so that its
     * literal is made as this class loads, not first in a catch with the heap full.
     */
    private static final String HANDING_ON;

    static {
      HANDING_ON = "handing on a connect-window place";
      // Links the stamp's call as the class loads, not first on a heap's-end path.
      HeapExhaustion.stamp();
    }

    /** Places now; guarded by lock. Fixed unless the window grows (see {@link #heard}). */
    private int size;
    /** The size at first, the least (the first but for DEEP_BACKLOG) and the most (its cap). */
    private final int firstSize;
    private final int floor;
    private final int cap;
    private final long holdNanos;
    private final Ticker ticker;
    private final Object lock = new Object();
    /** Places taken and not given back; guarded by lock. */
    private int used;
    /** Places held, oldest first; given-back ones are dropped as they reach the head. Guarded by lock. */
    private final ArrayDeque<Slot> held = new ArrayDeque<>();
    /** Sessions waiting for a place, in arrival order, each at most once; guarded by lock. */
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    /**
     * The one waiter whose wait is timed by the held places (until the oldest is overdue), from
     * its {@link Waiter#waitNanos()} until it leaves; null if none. The others wait for a wake-up,
     * so a place coming due wakes one session, not every one. Guarded by lock.
     */
    private Waiter clock;
    /** Sessions waiting for a place now (a waiter made and not yet left); guarded by lock. */
    private int waiting;
    /** Places taken whose session has not begun its connect yet (its pacing turn); guarded by lock. */
    private int beforeConnect;
    /** When the window last became full (see {@link #full()}); guarded by lock (meaningful while full). */
    private long fullSince;
    /** The rest guarded by lock. */
    private long longestFullNanos;
    private long waited;
    private long freedUnheard;
    private long entered;
    // Growth (a growing window only; see the class comment of ConnectWindow). All guarded by lock.
    /** The largest size held so far, trials included. */
    private int largest;
    /** Halvings that shrank the window. */
    private long halvings;
    /** Regrowths towards the first size after a halving (see {@link #regrow}). */
    private long regrowths;
    /** Places given back by a failed connect ({@link Slot#connectFailed()}). */
    private long connectsFailed;
    /** Whether the size now is a step on trial, not yet kept. */
    private boolean trial;
    /** The size before the step on trial. */
    private int baseSize;
    /** The measures at the base size, and at the step on trial. */
    private Measures base = new Measures();
    private Measures tried = new Measures();
    /** Places heard from still to be left out of the measure (taken before the last change). */
    private int settling;
    /** Places heard from counted in the measure under way, and when it began. */
    private int counted;
    private long measureStart;
    /** Measures to sit out before the next step; how many the last backoff was. */
    private int skip;
    private int backoff;
    /** When the window last halved; meaningful once halved. */
    private long lastHalving;
    private boolean halved;
    /** When a connect last failed or a place was last freed unheard; meaningful once halved. */
    private long troubleAt;
    /** When the size last changed by a halving or a regrowth; meaningful once halved. */
    private long resizedAt;
    /** The quiet a regrowth waits for now (see {@link ConnectWindow#REGROWTH_QUIET_NANOS}). */
    private long quietNanos = REGROWTH_QUIET_NANOS;
    /** Whether a regrowth awaits its verdict (trouble within its probation, or not), and when it was. */
    private boolean regrew;
    private long regrewAt;
    /** The least size taken so far. */
    private int smallest;

    Window(ConnectWindow window, Ticker ticker) {
      this.size = window.sessions;
      this.firstSize = window.sessions;
      this.floor = window.leastSessions;
      this.cap = window.maxSessions;
      this.largest = window.sessions;
      this.smallest = window.sessions;
      this.holdNanos = window.holdNanos;
      this.ticker = ticker;
      this.settling = window.sessions;
    }

    /**
     * A place came back with its session's first arrival: counted in the growth measure if
     * sessions wait for a place (the window is then what holds them back), else the measure
     * begins again (a trial step is dropped: nothing waited to show whether it paid). Under lock.
     * A step's new places are handed on by the caller's {@link #passOn()}.
     */
    private void heard(long now) {
      if (cap <= floor) {
        return;
      }
      if (size < firstSize && now - troubleAt >= quietNanos && now - resizedAt >= HALVING_GAP_NANOS) {
        regrow(now);
        return;
      }
      if (waiting == 0) {
        if (trial) {
          drop(now);
        } else {
          restart(now, 0);
        }
        return;
      }
      if (settling > 0) {
        if (--settling == 0) {
          restart(now, 0);
        }
        return;
      }
      if (++counted < Math.max(MEASURE_PLACES, size)) {
        return;
      }
      long took = now - measureStart;
      if (took <= 0L) {
        // A clock that did not move forward gives no rate: the measure is dropped, not counted
        // (clamped to 1 ns it would read as a huge gain and could keep a step that did not pay).
        restart(now, 0);
        return;
      }
      double rate = counted * 1e9 / took;
      if (!trial) {
        base.add(rate);
        if (skip > 0) {
          skip--;
        } else if (base.n >= 2) {
          step(now);
          return;
        }
        restart(now, 0);
        return;
      }
      tried.add(rate);
      double gain = tried.mean() / base.mean();
      if (gain < 9.0 / 8.0) {
        drop(now);
        return;
      }
      // Clearly faster: an eighth and CLEAR_BY standard errors more, the spread of the measures
      // at each size giving the error (the accept times of a server that is the limit spread
      // them wide, a window that is the limit narrowly).
      int df = base.n - 1 + tried.n - 1;
      double spread = df < MIN_DEGREES ? Double.POSITIVE_INFINITY
          : Math.max(MIN_SPREAD, Math.sqrt((base.spread() + tried.spread()) / df));
      if (gain >= 9.0 / 8.0 + CLEAR_BY * spread * Math.sqrt(1.0 / base.n + 1.0 / tried.n)) {
        // Kept: the next step is tried against the rate at this size.
        trial = false;
        backoff = 0;
        baseSize = size;
        Measures was = base;
        base = tried;
        tried = was;
        step(now);
        return;
      }
      if (tried.n >= MAX_TRIAL_MEASURES) {
        drop(now);
        return;
      }
      restart(now, 0);
    }

    /** The step on trial did not pay (or nothing waited to show it did): back to the base size. Under lock. */
    private void drop(long now) {
      trial = false;
      size = baseSize;
      backOff();
      restart(now, size);
    }

    /** Tries a step of a quarter more places, if below the cap; else measures on. Under lock. */
    private void step(long now) {
      if (size >= cap) {
        restart(now, 0);
        return;
      }
      baseSize = size;
      size = Math.min(cap, size + Math.max(1, size / 4));
      largest = Math.max(largest, size);
      trial = true;
      tried.clear();
      restart(now, size);
    }

    /** A new measure begins after {@code settle} more places heard from. Under lock. */
    private void restart(long now, int settle) {
      settling = settle;
      counted = 0;
      measureStart = now;
    }

    /** The next step waits twice as many measures as the last (1 at first, 16 at most). Under lock. */
    private void backOff() {
      backoff = Math.min(MAX_BACKOFF_MEASURES, Math.max(1, backoff * 2));
      skip = backoff;
    }

    /**
     * A failed connect or a place freed unheard: a growing window halves, never below its least
     * size, at most once a {@link ConnectWindow#HALVING_GAP_NANOS}, and backs off its next step.
     * Under lock.
     */
    private void halve(long now) {
      if (cap <= floor) {
        return;
      }
      if (regrew) {
        // The last regrowth's verdict: trouble soon after it doubles the quiet the next one waits for.
        regrew = false;
        quietNanos = now - regrewAt < Math.max(quietNanos, 2 * holdNanos)
            ? Math.min(MAX_REGROWTH_QUIET_NANOS, quietNanos * 2) : REGROWTH_QUIET_NANOS;
      }
      // Trouble within the gap halves nothing more, but it does put off the regrowth.
      troubleAt = now;
      if (halved && now - lastHalving < HALVING_GAP_NANOS) {
        return;
      }
      halved = true;
      lastHalving = now;
      int to = Math.max(floor, size / 2);
      if (to < size) {
        size = to;
        halvings++;
        resizedAt = now;
        smallest = Math.min(smallest, size);
      }
      trial = false;
      baseSize = size;
      base.clear();
      backOff();
      restart(now, size);
    }

    /**
     * A window halved below its first size grows back towards it, doubling (never past the first
     * size), as places come back heard from once its quiet ({@link ConnectWindow#REGROWTH_QUIET_NANOS},
     * longer after trouble that followed a regrowth) has passed with no failed connect and no place
     * freed unheard, and a {@link ConnectWindow#HALVING_GAP_NANOS} since its last change.
     * Below its first size it needs no measure to pay: the first size is what the window was
     * given to start from, and what halved it is over; above it the measured growth goes on (in
     * a closed loop, where growth never pays on its measures, a halved window would otherwise keep
     * 64 or 32 for the rest of the ramp). Under lock; the caller hands on the new places.
     */
    private void regrow(long now) {
      size = Math.min(firstSize, size * 2);
      resizedAt = now;
      regrew = true;
      regrewAt = now;
      regrowths++;
      trial = false;
      baseSize = size;
      base.clear();
      restart(now, size);
    }

    /** A connect failed: see {@link Slot#connectFailed()}. */
    void connectFailed(Slot slot) {
      boolean gave;
      synchronized (lock) {
        long now = ticker.nanoTime();
        halve(now);
        gave = Slot.STATE.compareAndSet(slot, Slot.HOLDING, Slot.RELEASED);
        if (gave) {
          connectsFailed++;
          placeGiven(slot, now);
        }
      }
      if (gave) {
        passOn();
      }
    }

    /**
     * Takes a place if one is free now, or the place of the oldest session held for
     * {@link ConnectWindow#holdNanos()} without word from its server.
     *
     * @return the place, to give back with {@link Slot#release()}; null if none is free
     */
    public Slot tryEnter() {
      Slot slot;
      boolean more;
      synchronized (lock) {
        freeOverdue(ticker.nanoTime());
        if (used >= size) {
          return null;
        }
        // Made before the count moves: a failed allocation (a full heap) leaks no place.
        slot = new Slot(this);
        used++;
        entered++;
        // Not full in the report's sense (a session before its connect), and not in held: the
        // hold bound starts at the connect ({@link Slot#connecting()}), not during the pacing turn.
        beforeConnect++;
        // Overdue places freed here beyond this one: a waiter may take the next.
        more = used < size && !waiters.isEmpty();
      }
      if (more) {
        passOn();
      }
      return slot;
    }

    /**
     * A session found no free place: what it waits on. Counts it as a session that waited.
     *
     * @return the session's waiter, to wait on as often as it must
     */
    public Waiter waiter() {
      // Made before the counts move: a failed allocation (a full heap) counts no waiter.
      Waiter w = new Waiter(this);
      synchronized (lock) {
        waited++;
        waiting++;
      }
      return w;
    }

    /** Drops given-back places at the head, and frees overdue ones. Under lock. */
    private void freeOverdue(long now) {
      for (Slot s = held.peekFirst(); s != null; s = held.peekFirst()) {
        if (s.state != Slot.HOLDING) {
          held.pollFirst();
        } else if (now - s.since >= holdNanos && Slot.STATE.compareAndSet(s, Slot.HOLDING, Slot.FREED_UNHEARD)) {
          held.pollFirst();
          freedUnheard++;
          halve(now);
          placeGiven(s, now);
        } else {
          return;
        }
      }
    }

    /**
     * Full in the report's sense: every place taken, and every place's session connecting or
     * connected. Places whose session still waits for its pacing turn do not count: then the
     * connect rate, not the server, is what holds the run back. Under lock.
     */
    private boolean full() {
      return used >= size && beforeConnect == 0;
    }

    /** A place came back. Under lock. */
    private void placeGiven(Slot slot, long now) {
      boolean was = full();
      used--;
      if (!slot.connected) {
        beforeConnect--;
      }
      if (was) {
        long stretch = now - fullSince;
        if (stretch > longestFullNanos) {
          longestFullNanos = stretch;
        }
      }
    }

    /** The session holding {@code slot} begins its connect: the hold bound starts now. */
    void connecting(Slot slot) {
      synchronized (lock) {
        if (slot.connected || slot.state != Slot.HOLDING) {
          return;
        }
        long now = ticker.nanoTime();
        // Stamped under the lock as it joins held: held stays in stamp order, so the head is the
        // oldest.
        slot.since = now;
        held.add(slot);
        slot.connected = true;
        beforeConnect--;
        if (full()) {
          fullSince = now;
        }
      }
    }

    void release(Slot slot, boolean heard) {
      synchronized (lock) {
        // Read under the lock: a reading taken before it could predate a measure that another
        // thread began meanwhile (first arrivals come on several I/O threads at once).
        long now = ticker.nanoTime();
        placeGiven(slot, now);
        if (heard) {
          heard(now);
        }
      }
      // A place given back, or new places if the window grew: the woken waiter's tryEnter hands
      // on the rest, one wake-up at a time.
      passOn();
    }

    /**
     * Wakes the longest waiter if a place is free. For a waiter that stops waiting (it took a
     * place, gave up, or was cancelled): a wake-up handed to it may have been meant for a place.
     */
    public void passOn() {
      passOn(false);
    }

    /**
     * Wakes the longest live waiter if a place is free, or, with {@code clockVacant} and still no
     * waiter watching the clock (looked at again under the lock: a newcomer may have taken it
     * since), whatever the places: its watcher left, or the one woken to take it over took a place
     * or gave up; the one woken now takes it over (it looks again, finds no place, and its
     * {@link Waiter#waitNanos()} is the timed one).
     *
     * <p>One wake-up at most, even if it fails. Of the wake-ups in this code base, only a virtual
     * thread's unpark can run out of heap (its scheduler's task): a fiber's wake-up queues without
     * a node when the heap is full ({@code Scheduler.enqueue}) or runs on the loop thread under a
     * catch, and a platform thread's latch allocates nothing. Such an {@link OutOfMemoryError} is
     * caught here, so that a place taken or given back is never lost with it and the caller (a
     * session that took a place, an I/O thread that heard from the server) goes on; but the wake-up
     * had settled its wait before it failed, so that session is stranded, not delayed: the error
     * is reported to {@link HeapExhaustion}, which aborts the runs watching, the only way that
     * session's run can end (a stranded virtual thread never runs again). No second
     * waiter is tried in its stead: in a full heap each try costs the caller, often an event loop,
     * full collections. The place stays free for the next {@link #tryEnter()}, release or clock
     * waiter; if the stranded one watched the clock, the clock is vacant again, and the next waiter
     * to look, or to register, takes it (its other waiters look again at their safety net,
     * {@link Waiter#UNTIMED_HOLDS} holds, at the latest).
     */
    private void passOn(boolean clockVacant) {
      Runnable next = null;
      Waiter woken = null;
      synchronized (lock) {
        while ((used < size || (clockVacant && clock == null)) && next == null) {
          Waiter w = waiters.poll();
          if (w == null) {
            break;
          }
          w.queued = false;
          next = w.wakeUp;
          w.wakeUp = null;
          woken = w;
        }
      }
      if (next == null) {
        return;
      }
      try {
        next.run();
      } catch (OutOfMemoryError e) {
        long metAt = HeapExhaustion.stamp();
        synchronized (lock) {
          if (clock == woken) {
            clock = null;
          }
        }
        // Told outside the lock (a watcher aborts its run, whose cancels may hand on places):
        // the stranded session's run can only end by that abort, since its wake-up is spent.
        HeapExhaustion.report(e, HANDING_ON, metAt);
      }
    }

    /**
     * What the window did so far in this run.
     *
     * @return the report
     */
    public Report report() {
      long now = ticker.nanoTime();
      synchronized (lock) {
        long longest = longestFullNanos;
        if (full() && now - fullSince > longest) {
          longest = now - fullSince;
        }
        return new Report(firstSize, floor, cap, holdNanos, entered, waited, freedUnheard, longest, waiting, 1, size,
            largest, smallest, halvings, regrowths, connectsFailed);
      }
    }
  }

  /**
   * Places a second, measured at one size of a growing window: the last {@value #BASE_MEASURES}
   * measures (a run whose rate drifts is judged by its recent ones). Guarded by its window's lock.
   */
  static final class Measures {
    private final double[] rates = new double[BASE_MEASURES];
    /** Measures held, at most {@value #BASE_MEASURES}; the next goes at {@code next}. */
    int n;
    private int next;

    void add(double rate) {
      rates[next] = rate;
      next = (next + 1) % rates.length;
      n = Math.min(rates.length, n + 1);
    }

    double mean() {
      double sum = 0.0;
      for (int i = 0; i < n; i++) {
        sum += rates[i];
      }
      return sum / n;
    }

    /** The sum of the measures' squared deviations from their mean, relative to the mean. */
    double spread() {
      double m = mean();
      double sum = 0.0;
      for (int i = 0; i < n; i++) {
        double d = rates[i] / m - 1.0;
        sum += d * d;
      }
      return sum;
    }

    void clear() {
      n = 0;
      next = 0;
    }
  }

  /**
   * One session's wait for a place in a {@link Window}: the registration of its
   * {@code Suspend.await}. It keeps its place in the queue from one wait to the next; after each
   * wait the session calls {@link #waited()}, so that a wake-up left from a wait that timed out is
   * not taken for a live one.
   */
  public static final class Waiter implements TimedRegistration {
    /**
     * A waiter that does not watch the clock waits at most this many holds: a safety net, for the
     * waiters left unwoken when a hand-over's one wake-up was spent on a session stranded by a full
     * heap (64 s with the default hold).
     */
    public static final long UNTIMED_HOLDS = 64L;

    private final Window window;
    /** Guarded by the window's lock. */
    Runnable wakeUp;
    /** Guarded by the window's lock. */
    boolean queued;
    /** Whether it left (see {@link #leave()}); guarded by the window's lock. */
    private boolean left;
    /** The clock's reading {@link #waitNanos()} worked its answer out on; the session's thread only. */
    private long reading;
    /**
     * Whether {@link #reading} is not yet spent by a wait's arming ({@link #timedFrom()}); the
     * session's thread only. A second wait armed without a new {@link #waitNanos()} is timed from
     * the clock as it is armed (see {@link TimedRegistration}).
     */
    private boolean fresh;

    Waiter(Window window) {
      this.window = window;
    }

    /**
     * How long this session waits before it tries again, at most. One waiter of the window at a
     * time, the clock's, waits until the oldest held place is overdue (it frees that place when it
     * looks again, and takes it); it keeps the clock from wait to wait until it {@link #leave()}s,
     * which hands the clock to the next waiter. Every other waiter waits for a place given back,
     * freed or handed on to it ({@link Window#passOn()}), and at most {@link #UNTIMED_HOLDS}
     * holds (a safety net only: for the waiters not woken because a hand-over's one wake-up was
     * spent on a session that a full heap stranded; see {@link Window#passOn()}).
     * So a place coming due wakes one session, not all of them. Frees overdue places; with a
     * place free, hands it on and answers at once.
     *
     * @return nanoseconds, at least 1
     */
    public long waitNanos() {
      Window w = window;
      synchronized (w.lock) {
        // Read under the lock, as in Window.release: a halving here restarts the growth measure.
        long now = w.ticker.nanoTime();
        reading = now;
        fresh = true;
        w.freeOverdue(now);
        if (w.used >= w.size) {
          if (w.clock != null && w.clock != this) {
            return w.holdNanos > Long.MAX_VALUE / UNTIMED_HOLDS ? Long.MAX_VALUE : w.holdNanos * UNTIMED_HOLDS;
          }
          w.clock = this;
          Slot oldest = w.held.peekFirst();
          if (oldest == null) {
            // Every place is before its connect (its pacing turn): none can be overdue sooner than
            // a hold from now; a place given back, or passed on, wakes the waiter earlier.
            return w.holdNanos;
          }
          long left = oldest.since + w.holdNanos - now;
          return left > 0L ? left : 1L;
        }
      }
      // Places freed here: the longest waiter may take one (the caller tries again at once).
      w.passOn(false);
      return 1L;
    }

    /**
     * The reading of the window's clock (the run's) that the last {@link #waitNanos()} was worked
     * out on: the session's wait is timed from it, so it ends when the oldest place comes due, not
     * that much later as the clock moved before the wait was armed.
     */
    @Override
    public Ticker timedOn() {
      return fresh ? window.ticker : null;
    }

    @Override
    public long timedFrom() {
      fresh = false;
      return reading;
    }

    /**
     * Runs {@code wakeUp} now if a place is free or no waiter watches the clock, else when a place
     * is given back (or the clock handed on). The clock may have been left between this waiter's
     * {@link #waitNanos()} and this call (its watcher took a place and found no one queued to hand
     * it to): woken at once, the session looks again and its {@code waitNanos()} takes the clock,
     * so held places are never left unwatched behind a safety-net wait. No spin: the clock is then
     * held.
     */
    @Override
    public void register(Runnable wakeUp) {
      boolean now;
      synchronized (window.lock) {
        now = window.used < window.size || window.clock == null;
        if (!now) {
          this.wakeUp = wakeUp;
          if (!queued) {
            // Queued only once added: an add that fails (the deque's growth in a full heap) leaves
            // it out of the queue, to be added at its next wait, not marked as in it for good.
            window.waiters.add(this);
            queued = true;
          }
        }
      }
      if (now) {
        wakeUp.run();
      }
    }

    /**
     * The session's wait ended (woken, timed out or cancelled): its wake-up, if still queued, is
     * dead. A waiter that watches the clock keeps it: it looks again now, or leaves.
     */
    public void waited() {
      synchronized (window.lock) {
        wakeUp = null;
      }
    }

    /**
     * The session stops waiting for good (it took a place, or gives up): a wake-up that came to it
     * meanwhile is handed to the next waiter, and so is the clock if no one watches it now (it
     * watched it, or it was woken to take it over and took a place instead or gave up). Counts once; later
     * calls only hand on. Allocates nothing.
     */
    public void leave() {
      boolean clockVacant;
      synchronized (window.lock) {
        wakeUp = null;
        if (window.clock == this) {
          window.clock = null;
        }
        // Vacant now, whoever left it: this waiter, or one it was handed to that took a place
        // instead (woken by a watcher that left, it found an overdue place free and took it) or
        // gave up (cancelled before it looked). Either way the next waiter is woken to look, and
        // takes the clock if the window is full: left vacant, no one frees the held places as
        // they come due, and the waiters sleep to their safety net or to a place given back.
        clockVacant = window.clock == null;
        if (!left) {
          left = true;
          window.waiting--;
        }
      }
      window.passOn(clockVacant);
    }
  }

  /** One session's place in a {@link Window}; runs {@link #release()} as a {@code Runnable}. */
  public static final class Slot implements Runnable {
    static final int HOLDING = 0;
    static final int RELEASED = 1;
    static final int FREED_UNHEARD = 2;
    static final AtomicIntegerFieldUpdater<Slot> STATE = AtomicIntegerFieldUpdater.newUpdater(Slot.class, "state");

    private final Window window;
    /** When its session began its connect; guarded by the window's lock, meaningful once connected. */
    long since;
    /** Whether its session began its connect (the place is then in held); guarded by the window's lock. */
    boolean connected;
    volatile int state;

    Slot(Window window) {
      this.window = window;
    }

    /**
     * Its session begins its connect now (after the wait for its pacing turn): from now on the
     * place is freed for the next session if held {@link ConnectWindow#holdNanos()} without word
     * from the server. Before this, a place is given back only by {@link #release()} (its pacing
     * turn always comes, or its session is cancelled). Once; does nothing after the place came back.
     */
    public void connecting() {
      window.connecting(this);
    }

    /**
     * Gives the place back (its connect failed, or its task ended, or the connection closed):
     * the longest waiter takes it. Once; later calls, and calls after the window freed the place
     * itself, do nothing. Allocates nothing.
     */
    public void release() {
      if (STATE.compareAndSet(this, HOLDING, RELEASED)) {
        window.release(this, false);
      }
    }

    /**
     * Gives the place back because its connect failed: as {@link #release()}, and a growing
     * window halves (see {@link ConnectWindow}). Not for a cancelled connect.
     */
    public void connectFailed() {
      if (state == HOLDING) {
        window.connectFailed(this);
      }
    }

    /**
     * The watcher of the transport's first arrival: gives the place back as {@link #release()},
     * and a growing window counts it in its measure of how fast places come back.
     */
    @Override
    public void run() {
      if (STATE.compareAndSet(this, HOLDING, RELEASED)) {
        window.release(this, true);
      }
    }
  }

  /**
   * What a run's connect window did: how many sessions had to wait for a place, how many places
   * were freed without word from the server (the escape for protocols whose first reply comes
   * late), and the longest time the window stayed full. Immutable.
   */
  public static final class Report {
    private final int sessions;
    private final int leastSessions;
    private final int maxSessions;
    private final long holdNanos;
    private final long entered;
    private final long waited;
    private final long freedUnheard;
    private final long longestFullNanos;
    private final int waiting;
    private final int addresses;
    private final int size;
    private final int largest;
    private final int smallest;
    private final long halvings;
    private final long regrowths;
    private final long connectsFailed;

    Report(int sessions, int leastSessions, int maxSessions, long holdNanos, long entered, long waited,
        long freedUnheard, long longestFullNanos, int waiting, int addresses, int size, int largest, int smallest,
        long halvings, long regrowths, long connectsFailed) {
      this.connectsFailed = connectsFailed;
      this.addresses = addresses;
      this.sessions = sessions;
      this.leastSessions = leastSessions;
      this.maxSessions = maxSessions;
      this.size = size;
      this.largest = largest;
      this.smallest = smallest;
      this.halvings = halvings;
      this.regrowths = regrowths;
      this.holdNanos = holdNanos;
      this.entered = entered;
      this.waited = waited;
      this.freedUnheard = freedUnheard;
      this.longestFullNanos = longestFullNanos;
      this.waiting = waiting;
    }

    /**
     * How many windows this report covers: one per listen queue the run's addresses reach (see
     * {@link ConnectWindow}), 1 for a single window.
     *
     * @return the windows
     */
    public int addresses() {
      return addresses;
    }

    /**
     * Sessions waiting for a place when the report was made (a timeline's gauge; 0 at a run's end).
     *
     * @return how many wait now
     */
    public int waiting() {
      return waiting;
    }

    /**
     * The window's size at first, each address's.
     *
     * @return how many sessions of one server may be unheard from at once at first
     */
    public int sessions() {
      return sessions;
    }

    /**
     * The floor a halving stops at, each address's ({@link ConnectWindow#leastSessions()}).
     *
     * @return the least size the window may take
     */
    public int leastSessions() {
      return leastSessions;
    }

    /**
     * How far the window may grow, each address's; {@link #sessions()} for a fixed window.
     *
     * @return its cap
     */
    public int maxSessions() {
      return maxSessions;
    }

    /**
     * The window's size when the report was made (a timeline's gauge); over several addresses the
     * largest window's.
     *
     * @return places now
     */
    public int size() {
      return size;
    }

    /**
     * The largest size the window took so far, a step on trial included (so the deepest the
     * listen queue may have been); over several addresses the largest window's.
     *
     * @return places at most
     */
    public int largest() {
      return largest;
    }

    /**
     * The least size the window took so far (halved, never below {@link #leastSessions()}); over
     * several addresses the smallest window's.
     *
     * @return places at the least
     */
    public int smallest() {
      return smallest;
    }

    /**
     * How many times a growing window halved (a failed connect, a place freed unheard).
     *
     * @return halvings, all windows'
     */
    public long halvings() {
      return halvings;
    }

    /**
     * How many times a window halved below its first size grew back towards it (doubling, once
     * 2 s passed with no failed connect and no place freed unheard; see {@link ConnectWindow}).
     *
     * @return regrowths, all windows'
     */
    public long regrowths() {
      return regrowths;
    }

    /**
     * Places given back by a failed connect ({@link Slot#connectFailed()}: refused, timed out,
     * unreachable; not a cancel), in any window, growing or fixed.
     *
     * @return failed connects, all windows'
     */
    public long connectsFailed() {
      return connectsFailed;
    }

    /**
     * Places taken: one per connect that came to the window.
     *
     * @return how many places were taken
     */
    public long entered() {
      return entered;
    }

    /**
     * Sessions that found the window full and waited for a place.
     *
     * @return how many waited
     */
    public long waited() {
      return waited;
    }

    /**
     * Places freed because their session had held them for the hold bound without hearing from
     * its server: more than 0 says the protocol's first reply came late (or the server stalled),
     * and the window let sessions through at its slowest.
     *
     * @return how many places were freed so
     */
    public long freedUnheard() {
      return freedUnheard;
    }

    /**
     * The longest stretch the window was full.
     *
     * @return nanoseconds
     */
    public long longestFullNanos() {
      return longestFullNanos;
    }

    /**
     * Whether the window held the run back for long: a place freed without word from the server,
     * or the window full for at least the hold bound.
     *
     * @return true if the window stayed full for long
     */
    public boolean stalled() {
      return freedUnheard > 0 || longestFullNanos >= holdNanos;
    }

    /**
     * {@code "connect window 32: 968 waited, full for 12 ms at most, 0 freed unheard after 1000 ms"};
     * over several addresses {@code "connect window 32 for each of 3 addresses: ..."}; a growing
     * window {@code "connect window 32 growing to 48 (reached 40, now 32, halved 1 time): ..."}; one
     * that halves below its first size also says the smallest it took and how often it grew back
     * ({@code "connect window 128 growing to 256 (reached 160, now 128, smallest 32, halved 2 times,
     * grew back 2 times): ..."}), and one that halves without growing ({@link ConnectWindow#cappedAt(int)}
     * at its first size) says so once it has halved ({@code "connect window 128 (now 64, smallest 32,
     * halved 2 times, grew back 1 time): ..."}).
     */
    @Override
    public String toString() {
      String growth = maxSessions > sessions ? " growing to " + maxSessions + " (reached " + largest + ", now " + size
          : halvings > 0 ? " (now " + size : null;
      if (growth != null) {
        growth += (leastSessions < sessions ? ", smallest " + smallest : "") + ", " + times("halved", halvings)
            + (leastSessions < sessions ? ", " + times("grew back", regrowths) : "") + ")";
      }
      return "connect window " + sessions + (growth != null ? growth : "")
          + (addresses > 1 ? " for each of " + addresses + " addresses" : "") + ": "
          + waited + " waited, full for " + longestFullNanos / 1_000_000L
          + " ms at most, " + freedUnheard + " freed unheard after " + holdNanos / 1_000_000L + " ms";
    }

    private static String times(String what, long n) {
      return what + " " + n + (n == 1 ? " time" : " times");
    }
  }
}
