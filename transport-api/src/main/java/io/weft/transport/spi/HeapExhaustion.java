package io.weft.transport.spi;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Weft does when the heap runs out: a small reserve, given back to the heap at the first
 * {@link OutOfMemoryError} that a Weft-owned thread (an I/O thread, the wait timer, a scheduler
 * worker, a session) sees, so that what follows (failing sessions, logging, unwinding a run) has
 * room to run; and the runs watching, told at once, so that they cancel their sessions and end
 * rather than leave the process to thrash in full GCs with waits that nothing will ever end.
 *
 * <p>Only the heap running out counts ({@code Java heap space}, {@code GC overhead limit
 * exceeded}): an array over the VM's limit, or a buffer refusing to pass 2 GiB, is one caller's
 * failure and leaves the heap as it was. A heap still over 95% full after a full collection
 * counts too (see {@code CollectionUsageWatch}): such a JVM may collect again and again for
 * minutes without ever throwing the error, and the runs end as if it had; but only the watches
 * that began before that collection hear it. So does a JVM that spends most of its time in
 * collection pauses with the old generation nearly full after them (see
 * {@code CollectionTimeWatch}, a thread of its own that needs neither a notification nor a thread
 * meeting the error; Serial, Parallel and G1 only, in effect).
 *
 * <p>Lifecycle: the reserve is taken when the class loads and again by each {@link #watch} after
 * a release, if the heap has room for it then; each {@link #watch} listens to the collectors'
 * notifications, until no watch needs them (none watches, or every one has heard a report: the
 * JVM builds none meanwhile); the first starts the collection-time watch's daemon thread (which
 * sleeps while no run watches), for the rest of the JVM's life.
 */
public final class HeapExhaustion {
  /**
   * The name of the daemon thread, one per JVM, that watches the time spent collecting while a
   * run watches (it lives on after the runs, asleep).
   */
  public static final String WATCH_THREAD_NAME = CollectionTimeWatch.THREAD_NAME;

  /** The bytes held back for the aftermath; small next to any heap a run can use. */
  static final int RESERVE_BYTES = 2 * 1024 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(HeapExhaustion.class);
  /** Copied on every change, read without a lock or an iterator. */
  private static volatile Watcher[] watchers = new Watcher[0];
  /** The reason when not even the words fit; assigned here, not a constant, so it is made now. */
  private static final String UNSAID;
  /**
   * How the heap's own {@link OutOfMemoryError}s begin, for {@link #isHeapExhausted}. Fields
   * assigned here, not literals in that method: a literal is made (interned) at its first use,
   * which allocates, and that method's first use is the first report, with the heap full. As a
   * literal, that allocation threw an {@code OutOfMemoryError} out of {@link #report} (the reserve
   * is given back only after the check), so that the first thread to meet the heap's end (and any
   * after it, until one found room) told no run: a MINA processor dying so failed its connector's
   * sessions with {@code TransportClosedException} and their run returned unaborted.
   */
  private static final String HEAP_SPACE;
  private static final String GC_OVERHEAD;

  static {
    HEAP_SPACE = "Java heap space";
    GC_OVERHEAD = "GC overhead limit exceeded";
    UNSAID = "the heap ran out (" + "java.lang.OutOfMemoryError, with no room to say more)";
    words(watchers, new OutOfMemoryError(UNSAID), UNSAID, -1, 0L, 0L);
  }

  @SuppressWarnings("unused") // held, never read: its point is to be let go
  private static volatile byte[] reserve = new byte[RESERVE_BYTES];
  /**
   * Whether this exhaustion has been logged (reset with the reserve). Words are skipped only once it
   * is set and every watcher a report concerns has heard a report (of this exhaustion or an
   * earlier one: {@code heard} is not reset with the reserve; see {@link #words}).
   */
  private static volatile boolean said;
  /**
   * Whether the collectors may have Weft's listener on them (a watch has listened since the last
   * stop that removed it from all); written under the class's lock. Until a watch begins there is nothing
   * to stop, and a report then must not be the first use of {@code CollectionUsageWatch}: its
   * class would be initialised in a heap that may be full, and a failed initialisation leaves it
   * unusable for the JVM's life.
   */
  private static volatile boolean mayBeListening;
  /**
   * Whether a report's try to stop listening found no room (see {@link #stopListeningUnlessNeeded}):
   * the reports after it do not try again, each try costing its thread full collections, until a
   * watch listens again; a watch's end still tries. Written under the class's lock, or set without
   * it by an unexpected error in a report's try, which can overwrite a concurrent {@link #watch}'s
   * reset: the listener then stays on until a watch's end removes it (the behaviour before session
   * 22); no report is lost.
   */
  private static volatile boolean stopFailed;
  /**
   * Taken, never waited for, by the one report making the removal: the others go on at once. A
   * report that waited for the class's lock there held its session's virtual thread on the
   * carrier (a virtual thread blocked on a monitor in a full heap, with no room to unmount, pins
   * it), and with both carriers so held and no platform thread owning the lock (so, presumably, a
   * virtual thread unmounted and waiting for a carrier: the thread dump shows only the waiters), no
   * report told the runs: a VIRTUAL_THREADS child of RunOutOfHeapTest hung past its watchdog
   * ({@code RemovalNotWaitedForTest}).
   */
  private static final AtomicBoolean STOPPING = new AtomicBoolean();

  static {
    // Linked now, with room: its first use comes in a full heap.
    STOPPING.compareAndSet(false, false);
  }
  /** How many watches have begun in this JVM (see {@link #stamp()}); written under the class's lock. */
  private static volatile long watchesBegun;

  private HeapExhaustion() {}

  /**
   * Whether {@code failure}, or one of its causes, says the heap ran out.
   *
   * @param failure any throwable, or null
   * @return true for an {@link OutOfMemoryError} about the heap itself
   */
  public static boolean isHeapExhausted(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
      if (t instanceof OutOfMemoryError) {
        String message = t.getMessage();
        return message != null
            && (message.startsWith(HEAP_SPACE) || message.startsWith(GC_OVERHEAD));
      }
    }
    return false;
  }

  /**
   * Reports a failure that the current thread met in {@code what} (a constant: the words are put
   * together only once the reserve is back, since the heap may have no room for them before). If
   * it is the heap running out, gives the reserve back and tells every watcher why; otherwise does
   * nothing. Never throws: it is called from the catch blocks of threads that must go on or die
   * cleanly.
   *
   * @param failure what the thread met
   * @param what where, for the reason's words: "a session", "a MINA I/O thread", ...
   * @return true if it was the heap running out
   */
  public static boolean report(Throwable failure, String what) {
    if (!isHeapExhausted(failure)) {
      return false;
    }
    // Let go first: the words below need room.
    reserve = null;
    // One read of the watchers for the words and the telling: a watch begun between two reads
    // would hear the words skipped for the watchers of the first.
    Watcher[] now = watchers;
    // Before the words: the first allocation after the reserve's release finds its room.
    stopListeningUnlessNeeded(now, -1, 0L, 0L);
    tell(now, words(now, failure, what, -1, 0L, 0L), -1, 0L, 0L);
    return true;
  }

  /**
   * Where the watches stand now, for {@link #report(Throwable, String, long)}: taken where an error
   * is caught, before anything is looked at, it tells the report which runs were watching when
   * the error was met. Allocates nothing (a volatile read).
   *
   * @return the number of watches begun so far in this JVM
   */
  public static long stamp() {
    return watchesBegun;
  }

  /**
   * As {@link #report(Throwable, String)}, but only the watches begun by {@code stamp} (taken by
   * {@link #stamp()} when the error was caught) hear it; if none of them is still watching, the
   * report tells no one and keeps the reserve. For a thread that may report late: one whose run
   * may end, and a later run begin to watch, between its looking whether the error is still its
   * run's business and its report (a session its run may leave behind, a scheduler's thread
   * whose run may be shutting down). Stamped before that look, the report cannot reach a run
   * that began after it (the rule of the collection watches: a late notification must not end a
   * run that began after the heap it saw). Never throws.
   *
   * @param failure what the thread met
   * @param what where, for the reason's words, as for {@link #report(Throwable, String)}
   * @param stamp {@link #stamp()} as the error was caught
   * @return true if it was the heap running out (whether or not anyone heard)
   */
  public static boolean report(Throwable failure, String what, long stamp) {
    if (!isHeapExhausted(failure)) {
      return false;
    }
    Watcher[] now = watchers;
    if (!anyWatchingBy(now, stamp)) {
      // Every run watching now began after the error was met: none of them is its business.
      return true;
    }
    reserve = null;
    stopListeningUnlessNeeded(now, BY_STAMP, stamp, 0L);
    tell(now, words(now, failure, what, BY_STAMP, stamp, 0L), BY_STAMP, stamp, 0L);
    return true;
  }

  /** Whether any of the watchers {@code now} had begun by {@code stamp}. Allocates nothing. */
  private static boolean anyWatchingBy(Watcher[] now, long stamp) {
    for (int i = 0; i < now.length; i++) {
      Watcher watcher = now[i];
      if (watcher != null && watcher.number <= stamp) {
        return true;
      }
    }
    return false;
  }

  /** How many times {@link #words} tries to make the words before it gives up on them. */
  private static final int WORD_TRIES = 2;

  /**
   * The words for a report, once the reserve is given back, or {@link #UNSAID} if they do not fit.
   * Tried a second time, best effort, when the heap refuses them: a G1 with a GC overhead limit
   * (JDK-8212084: JDK 26, backported to 25.0.3 and to 21 updates; not OpenJDK 17.0.15's G1;
   * Parallel always had one) fails, once the limit has been passed, every allocation that needs a
   * collection, even when that collection freed the reserve. The second try then takes a region
   * the reserve left free, with no collection (25.0.3, G1: the first try failed in about one
   * child JVM in six under load, and every time with {@code -XX:GCTimeLimit=0
   * -XX:GCHeapFreeLimit=100}; the second never did). It cannot where the reserve leaves no
   * region free: G1 regions of 8 MiB and more (heaps of 16 GiB and more) hold it inside one, and
   * there the runs may hear {@link #UNSAID}. Each failed try costs the JVM's collections again, so
   * there is only one more. A report that takes the listener's removal
   * ({@link #stopListeningUnlessNeeded}) makes that removal first, so the removal, not the words,
   * is the first allocation after the release and absorbs that first failure; its words then try
   * twice as above ({@code NoRoomReportTest}'s {@code limit} cases, JDK 25, passed so at cde714d5).
   *
   * <p>Not tried if this exhaustion has been said already and every watcher of {@code now} (the
   * watchers the report will tell: read once per report) that the report concerns
   * ({@code collector}, {@code id} and {@code windowStartNanos} as for {@link #tell}) has heard a
   * report (looked at before each try; one of an earlier exhaustion counts too): then each later
   * report (hundreds of sessions failing
   * with the error, a woken session's cancel meeting it) would only cost its thread full
   * collections for words that no one needs: at a full heap, each allocation fails only after them
   * (seen: the one worker of a MINA run spending its close wait on them, the cancels of its
   * sessions waiting behind). A watcher that has not heard yet gets words: one whose watch began
   * after an earlier report that reached only older watches (stamped, or a late collection
   * notice) or after one that found no room to take the reserve back, which would otherwise hear
   * its own exhaustion without them; and one that a report under way has not reached yet, which
   * would otherwise hear a racing later report's {@link #UNSAID} first (a run keeps the first
   * reason it hears). Never throws.
   */
  private static String words(Watcher[] now, Throwable failure, String what, int collector, long id,
      long windowStartNanos) {
    for (int i = 0; i < WORD_TRIES; i++) {
      if (said && allHeard(now, collector, id, windowStartNanos)) {
        return UNSAID;
      }
      try {
        return reason(failure, what);
      } catch (RuntimeException | Error e) {
        // The heap (or its overhead limit) refused the words: try again, a bounded number of times.
      }
    }
    // Even the words did not fit: the watchers hear the reason without them.
    return UNSAID;
  }

  /**
   * Whether every watcher of {@code now} that a report for {@code collector} (as for {@link #tell})
   * concerns has heard an earlier one. Allocates nothing.
   */
  private static boolean allHeard(Watcher[] now, int collector, long id, long windowStartNanos) {
    for (int i = 0; i < now.length; i++) {
      Watcher watcher = now[i];
      if (watcher != null && !watcher.heard
          && (collector == -1 || concerns(watcher, collector, id, windowStartNanos))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The words for a report. Also run once as the class loads, with room to spare: the first
   * run of a piece of code resolves its string literals and links its concatenations, which
   * allocates, and the real first run comes when the heap has no room.
   */
  private static String reason(Throwable failure, String what) {
    StringBuilder words = new StringBuilder(160);
    words.append("the heap ran out (").append(failure).append(", met by ").append(what).append(" on thread ")
        .append(Thread.currentThread().getName()).append(')');
    return words.toString();
  }

  /**
   * The heap has run out, for {@code reason}: gives the reserve back, says so once, and tells
   * every watcher. Never throws, and allocates nothing before the watchers have heard (they
   * are an array, not an iterator).
   */
  static void exhausted(String reason) {
    tell(watchers, reason, -1, 0L, 0L);
  }

  /**
   * A full collection, number {@code id} of collector {@code collector}, left the heap over the
   * threshold: as {@link #exhausted}, but only for the watchers that began before it completed
   * (a late notification must not end a run that began after the heap it saw was freed); does
   * nothing if there is none.
   */
  static void exhaustedByCollection(String reason, int collector, long id) {
    tell(watchers, reason, collector, id, 0L);
  }

  /**
   * The JVM spent most of a window that began at {@code windowStartNanos} collecting, the heap
   * nearly full ({@code CollectionTimeWatch}): as {@link #exhausted}, but only for the watchers
   * that began before the window did (one begun since may be a run after the heap was freed).
   */
  static void exhaustedByCollectionTime(String reason, long windowStartNanos) {
    tell(watchers, reason, BY_TIME, 0L, windowStartNanos);
  }

  /** The reserve goes back to the heap, for room to say why. Allocates nothing. */
  static void releaseReserve() {
    reserve = null;
  }

  /** Whether any run watches now. Allocates nothing. */
  static boolean anyWatching() {
    Watcher[] now = watchers;
    for (int i = 0; i < now.length; i++) {
      if (now[i] != null) {
        return true;
      }
    }
    return false;
  }

  /** Whether any run watching now has not heard a report yet. Allocates nothing. */
  static boolean anyUnheard() {
    Watcher[] now = watchers;
    for (int i = 0; i < now.length; i++) {
      Watcher watcher = now[i];
      if (watcher != null && !watcher.heard) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether any run watching now began by {@code windowStartNanos}: one that a window of
   * {@code CollectionTimeWatch} beginning then concerns. Allocates nothing.
   */
  static boolean anyWatchingSince(long windowStartNanos) {
    Watcher[] now = watchers;
    for (int i = 0; i < now.length; i++) {
      Watcher watcher = now[i];
      if (watcher != null && concerns(watcher, BY_TIME, 0L, windowStartNanos)) {
        return true;
      }
    }
    return false;
  }

  /** {@link #tell}'s collector for a window of {@code CollectionTimeWatch}. */
  private static final int BY_TIME = -2;
  /** {@link #tell}'s collector for a stamped report: {@code id} is the {@link #stamp()}. */
  private static final int BY_STAMP = -3;

  /**
   * Tells the watchers of {@code told} (the watchers when the report was made, read once) concerned:
   * every one ({@code collector} -1), those begun before
   * {@code collector}'s collection {@code id} completed, ({@link #BY_TIME}) those begun by
   * {@code windowStartNanos}, or ({@link #BY_STAMP}) those begun by stamp {@code id}; does nothing
   * if none is.
   */
  private static void tell(Watcher[] told, String reason, int collector, long id, long windowStartNanos) {
    if (collector != -1) {
      boolean any = false;
      for (int i = 0; i < told.length && !any; i++) {
        Watcher watcher = told[i];
        any = watcher != null && concerns(watcher, collector, id, windowStartNanos);
      }
      if (!any) {
        return;
      }
    }
    boolean first = !said;
    said = true;
    reserve = null;
    stopListeningUnlessNeeded(told, collector, id, windowStartNanos);
    for (int i = 0; i < told.length; i++) {
      // A slot emptied in place by a watch that ended with no room to copy the array.
      Watcher watcher = told[i];
      if (watcher == null) {
        continue;
      }
      if (collector != -1 && !concerns(watcher, collector, id, windowStartNanos)) {
        continue;
      }
      // A run that had not heard before: said (logged) for it too.
      first |= !watcher.heard;
      try {
        watcher.onExhausted.accept(reason);
      } catch (RuntimeException | Error e) {
        // One watcher failing must not keep the others from hearing.
      }
      // Only now, after its hearing: a report racing this one makes its own words until then (see
      // words), so that its UNSAID cannot reach this watcher first. (Not testable without a hook
      // inside the hearing: SaidOnceReportTest's racing case pins only the per-watcher flag.)
      watcher.heard = true;
    }
    try {
      if (first) {
        // Once: the hundreds of sessions failing with it would otherwise say the same.
        LOG.error("{}: failed the runs under way", reason);
      }
    } catch (RuntimeException | Error e) {
      // No room to log it: the watchers have heard.
    }
    // Again, for a watcher that a racing report told meanwhile (nothing if the first try failed).
    stopListeningUnlessNeeded(told, collector, id, windowStartNanos);
  }

  /**
   * Stops listening to the collectors' notifications if no watch needs them once the report under
   * way has told {@code told} (the watchers it read; {@code collector}, {@code id} and
   * {@code windowStartNanos} as for {@link #tell}): every watcher has heard a report, or is one of
   * {@code told} that this report concerns (a run keeps the first reason it hears, and is aborted
   * by it). The next {@link #watch} listens again. So the JVM stops building a notification after
   * each collection for the rest of an exhausted heap's runs (their close waits, and after): in a
   * heap full to the end, each build failed after collections of its own, each of which made
   * another notification; the notification thread was the busiest failing allocator there
   * (VIRTUAL_THREADS children whose aborted runs' sessions were still unwinding).
   *
   * <p>Tried first thing in a report, right after the reserve's release and before its words:
   * the removal allocates (the JDK copies its list of listeners), and the first allocation after
   * the release is the one whose collection finds the reserve's room. Tried by one report only:
   * if it finds no room, the reports after it do not try again ({@link #stopFailed}) until a
   * watch listens again; a watch's end tries again ({@link #stopListeningAtWatchEnd}). When every
   * report tried it (hundreds of failing sessions' threads, and the canceller), the removal was
   * the busiest failing allocator of a VIRTUAL_THREADS child (189 of its 886 failed allocations),
   * each failure costing full collections. Takes the class's lock, as {@link #watch} does while
   * it listens again, counts the collections and adds its watcher, so that a stop never comes
   * between those; only by the report that takes {@link #STOPPING}, and looked at first without it
   * (nothing allocated): no report ever waits for another's removal, so the hundreds of reports of
   * one exhaustion pass on to their telling. Never throws.
   */
  private static void stopListeningUnlessNeeded(Watcher[] told, int collector, long id, long windowStartNanos) {
    try {
      if (!mayBeListening || stopFailed || !noneNeeds(watchers, told, collector, id, windowStartNanos)
          || !STOPPING.compareAndSet(false, true)) {
        return;
      }
      try {
        synchronized (HeapExhaustion.class) {
          if (mayBeListening && !stopFailed && noneNeeds(watchers, told, collector, id, windowStartNanos)) {
            boolean none = CollectionUsageWatch.stopListening();
            mayBeListening = !none;
            stopFailed = !none;
          }
        }
      } finally {
        STOPPING.set(false);
      }
    } catch (RuntimeException | Error e) {
      // It goes on listening: a watch's end tries again.
      stopFailed = true;
    }
  }

  /** As {@link #stopListeningUnlessNeeded} with no report under way, at a watch's end: tried even after a report's try failed. */
  private static void stopListeningAtWatchEnd() {
    try {
      synchronized (HeapExhaustion.class) {
        if (mayBeListening && allHeard(watchers, -1, 0L, 0L)) {
          boolean none = CollectionUsageWatch.stopListening();
          mayBeListening = !none;
          stopFailed = !none;
        }
      }
    } catch (RuntimeException | Error e) {
      // It goes on listening: the next watch's end tries again.
    }
  }

  /**
   * Whether every watcher of {@code now} has heard a report or is one of {@code told} that a
   * report for {@code collector} (as for {@link #tell}) concerns. Allocates nothing.
   */
  private static boolean noneNeeds(Watcher[] now, Watcher[] told, int collector, long id, long windowStartNanos) {
    for (int i = 0; i < now.length; i++) {
      Watcher watcher = now[i];
      if (watcher != null && !watcher.heard && !(isIn(told, watcher)
          && (collector == -1 || concerns(watcher, collector, id, windowStartNanos)))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isIn(Watcher[] told, Watcher watcher) {
    for (int i = 0; i < told.length; i++) {
      if (told[i] == watcher) {
        return true;
      }
    }
    return false;
  }

  private static boolean concerns(Watcher watcher, int collector, long id, long windowStartNanos) {
    return collector == BY_TIME ? watcher.startedNanos - windowStartNanos <= 0L
        : collector == BY_STAMP ? watcher.number <= id
        : CollectionUsageWatch.isCurrent(watcher.collectionsAtStart, collector, id);
  }

  /**
   * Has {@code onExhausted} told the reason when the heap runs out, until the returned handle is
   * closed: the first time by whichever thread or watch tells it first; once it has heard, by the
   * reports of threads that meet the error (the collection notifications and
   * {@code weft-heap-watch} may have stopped looking once every watch has heard); takes the reserve
   * again if an earlier exhaustion gave it back and the heap has room for it now.
   *
   * @param onExhausted told the reason, on the thread that saw the error; must not block
   * @return the handle that ends the watch
   * @throws IllegalStateException if system property {@code io.weft.transport.gcTimePercent} is
   *     set to anything but a whole number from 0 to 100 (nothing is watched then)
   */
  public static Watch watch(Consumer<String> onExhausted) {
    // First: it refuses a bad property, and then nothing is watched (nor listened to).
    CollectionTimeWatch.start();
    if (reserve == null) {
      try {
        reserve = new byte[RESERVE_BYTES];
        said = false;
      } catch (OutOfMemoryError e) {
        // Still no room: the run goes ahead without one, and ends as soon as the heap runs out.
      }
    }
    Watcher watcher;
    synchronized (HeapExhaustion.class) {
      // Listening, then counting the collections, under the lock a stop takes
      // (stopListeningUnlessNeeded): no stop comes between, so every collection counted after is
      // heard (if the heap had room to add the listener).
      CollectionUsageWatch.listen();
      mayBeListening = true;
      stopFailed = false;
      long[] collectionsAtStart = CollectionUsageWatch.collectionsNow();
      long startedNanos = System.nanoTime();
      // Numbered here, in the order the watches begin: a report stamped before this one began
      // does not reach it (report(Throwable, String, long)).
      watcher = new Watcher(onExhausted, collectionsAtStart, startedNanos, watchesBegun + 1);
      watchesBegun = watcher.number;
      Watcher[] now = Arrays.copyOf(watchers, watchers.length + 1);
      now[now.length - 1] = watcher;
      watchers = now;
    }
    CollectionTimeWatch.watchBegun();
    return () -> unwatch(watcher);
  }

  private static synchronized void unwatch(Watcher watcher) {
    Watcher[] now = watchers;
    for (int i = 0; i < now.length; i++) {
      if (now[i] == watcher) {
        try {
          Watcher[] less = Arrays.copyOf(now, now.length - 1);
          System.arraycopy(now, i + 1, less, i, now.length - i - 1);
          watchers = less;
        } catch (OutOfMemoryError e) {
          // An aborted run ends here, perhaps with the heap still full: its end must not turn
          // into this error. The slot is emptied in place instead (tell() skips it).
          now[i] = null;
        }
        stopListeningAtWatchEnd();
        return;
      }
    }
  }

  /** One watch: whom to tell, and how many collections each collector had completed as it began. */
  private static final class Watcher {
    final Consumer<String> onExhausted;
    final long[] collectionsAtStart;
    /** When it began ({@link System#nanoTime}), for {@code CollectionTimeWatch}'s windows. */
    final long startedNanos;
    /** Its place among the watches begun in this JVM, from 1, for stamped reports. */
    final long number;
    /** Whether a report has been told to it ({@link #words} makes words for one that has not). */
    volatile boolean heard;

    Watcher(Consumer<String> onExhausted, long[] collectionsAtStart, long startedNanos, long number) {
      this.onExhausted = onExhausted;
      this.collectionsAtStart = collectionsAtStart;
      this.startedNanos = startedNanos;
      this.number = number;
    }
  }

  /** A watch begun by {@link #watch}; closing it ends it. */
  public interface Watch extends AutoCloseable {
    @Override
    void close();
  }
}
