package io.weft.simulation;

import io.weft.continuations.ContinuationClassLoader;
import io.weft.continuations.runtime.spi.DrivenScheduler;
import io.weft.continuations.runtime.spi.DrivenSession;
import io.weft.continuations.runtime.spi.SessionWait;
import io.weft.continuations.runtime.spi.WaitTimeouts;
import io.weft.transport.spi.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.SplittableRandom;

/**
 * The virtual world of one run, on the caller's one thread: the clock, the one seeded random
 * source, the queue of future events, the event log, and the driven scheduler whose fibers are the
 * sessions. Time moves only when the loop takes the next event off the queue; between two events
 * every ready session runs, in an order drawn from the random source.
 *
 * <p>Wait timeouts: a session has at most one armed wait at a time, so the timer keeps one slot per
 * session (its wait and deadline) and at most one queued timer event for it. A wait that ends early
 * leaves that event in the queue; when it fires it finds either nothing pending, or a later wait,
 * for which it queues itself again at that wait's deadline (netty's idle-state handler does the
 * same). So a read with a 30 s timeout that is answered in 50 ms costs no queue entry of its own,
 * and the queue never holds more timer events than sessions.
 */
final class World implements Ticker, WaitTimeouts {
  private static final ThreadLocal<World> CURRENT = new ThreadLocal<>();

  final long seed;
  final SplittableRandom random;
  final EventLog log;
  /** Reads that found their bytes buffered, for every transport of the run. */
  final java.util.concurrent.atomic.LongAdder immediateReads = new java.util.concurrent.atomic.LongAdder();
  /** The network of the run; set once, before anything runs. */
  Net net;
  /** The connector of each host that has connected, in the order first used. */
  private final java.util.Map<String, SimConnector> connectors = new java.util.LinkedHashMap<>();
  final DrivenScheduler scheduler;
  private final EventQueue queue = new EventQueue();
  /**
   * Every session's slot, in the order made, which is not the order of their indexes: a run makes
   * its clients in the order they start (see {@link #reserve}). This array is the one path from
   * the world to the sessions, so a young collection copies each session's objects in this order,
   * the order the run then touches them in (see docs/simulation.md, "Memory order").
   */
  private Slot[] slots = new Slot[64];
  private int made;
  /** Where each session index's slot is in {@link #slots}; -1 while reserved but not made. */
  private int[] places = new int[64];
  /** Session indexes given out: made, or reserved to be made. */
  private int indexes;
  private final ArrayList<DrivenSession> round = new ArrayList<>();
  private final boolean shuffle;
  private long now;
  private long sequence;
  /** The slot of the session running now, or null between slices. */
  private Slot running;
  /**
   * The number of the slice running, -1 between slices; with {@link #runningIndex}, read by the
   * {@link BlockWatch}. Written with release stores: the watcher samples every 100 ms and needs
   * to see them in order, not at once, and a volatile store would cost a fence three times a slice.
   */
  private volatile long slice = -1L;
  private long slices;
  /** Client sessions that have ended. */
  private int clientsEnded;
  private volatile int runningIndex = -1;
  private static final VarHandle SLICE;
  private static final VarHandle RUNNING_INDEX;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      SLICE = lookup.findVarHandle(World.class, "slice", long.class);
      RUNNING_INDEX = lookup.findVarHandle(World.class, "runningIndex", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }
  private volatile BlockedSessionError blocked;

  World(long seed, boolean shuffle, EventLog log, ContinuationClassLoader loader) {
    this.seed = seed;
    this.scheduler = DrivenScheduler.create(loader, this);
    this.random = new SplittableRandom(seed);
    this.shuffle = shuffle;
    this.log = log;
  }

  /** The world running on this thread, or null. */
  static World current() {
    return CURRENT.get();
  }

  void enter() {
    CURRENT.set(this);
  }

  void leave() {
    CURRENT.remove();
  }

  @Override
  public long nanoTime() {
    return now;
  }

  long now() {
    return now;
  }

  /** Something that happens at a virtual time; ties break by the order they were queued in. */
  abstract static class Event implements Comparable<Event> {
    long time;
    long sequence;

    abstract void fire();

    @Override
    public final int compareTo(Event o) {
      int c = Long.compare(time, o.time);
      return c != 0 ? c : Long.compare(sequence, o.sequence);
    }
  }

  /** Queues {@code event} for {@code time}, or for now if that has passed. */
  void at(long time, Event event) {
    queue.add(stamp(time, event));
  }

  /**
   * Gives {@code event} its time ({@code time}, or now if that has passed) and its place among
   * the events queued at that time, as {@link #at} does, without queueing it: for {@link #atAll}.
   */
  Event stamp(long time, Event event) {
    event.time = Math.max(time, now);
    event.sequence = sequence++;
    return event;
  }

  /**
   * Queues {@code events}, each given its time by {@link #stamp}, at once: the same order as
   * {@link #at} one by one, for one sort instead of a heap entry each (a run's start events,
   * drawn at random times). The array is the queue's from now on.
   */
  void atAll(Event[] events) {
    queue.addSorted(events);
  }

  /** One session: its fiber, its armed wait and deadline, its connection, what ends it. */
  static final class Slot {
    final DrivenSession fiber;
    final boolean client;
    SessionWait wait;
    long deadline;
    long timerAt = Long.MAX_VALUE;
    boolean started;
    boolean ended;
    Endpoint endpoint;
    /** The id of the session's last connection, for the log; -1 before any. */
    long conn = -1L;
    /**
     * A server session's listener, told when the session ends; null for a client. A field of one
     * type rather than a callback per session: the end of a slice calls it from the loop that runs
     * every slice, and a call through an interface there meets its second implementation only
     * when the first servers end, late in a run, which makes the JIT throw the compiled loop away.
     */
    Listener servedBy;

    Slot(DrivenSession fiber, boolean client) {
      this.fiber = fiber;
      this.client = client;
    }
  }

  /** The next session index: sessions are numbered in the order they are made or reserved. */
  int nextIndex() {
    return indexes;
  }

  /**
   * Reserves the next {@code count} session indexes, whose sessions are then made in any order
   * with {@link #add}: a run's clients, made in the order they start.
   *
   * @return the first index reserved
   */
  int reserve(int count) {
    int first = indexes;
    growTo(made + count, first + count);
    java.util.Arrays.fill(places, first, first + count, -1);
    indexes = first + count;
    return first;
  }

  /**
   * Adds the slot of {@code fiber}, whose index is either reserved and not made yet, or the next
   * one (then it is taken now).
   */
  Slot add(DrivenSession fiber, boolean client) {
    int index = fiber.index();
    if (index == indexes) {
      growTo(made + 1, index + 1);
      indexes++;
    } else if (index < 0 || index > indexes || places[index] != -1) {
      throw new IllegalStateException("session " + index + " made out of order");
    }
    Slot slot = new Slot(fiber, client);
    places[index] = made;
    slots[made++] = slot;
    return slot;
  }

  private void growTo(int slotCount, int indexCount) {
    if (slotCount > slots.length) {
      slots = java.util.Arrays.copyOf(slots, Math.max(slotCount, slots.length + (slots.length >> 1)));
    }
    if (indexCount > places.length) {
      places = java.util.Arrays.copyOf(places, Math.max(indexCount, places.length + (places.length >> 1)));
    }
  }

  /** The indexes of the sessions made so far, in the order they were made (for tests). */
  int[] madeOrder() {
    int[] order = new int[made];
    for (int i = 0; i < made; i++) {
      order[i] = slots[i].fiber.index();
    }
    return order;
  }

  /** The slot of session {@code index}, which has been made. */
  Slot slot(int index) {
    return slots[places[index]];
  }

  /** The session whose slice runs now; null between slices. */
  Slot running() {
    return running;
  }

  @Override
  public void arm(SessionWait wait, long timeoutNanos) {
    int session = wait.session();
    Slot slot = slot(session);
    long deadline = now + Math.min(timeoutNanos, Long.MAX_VALUE / 4);
    slot.wait = wait;
    slot.deadline = deadline;
    if (slot.timerAt > deadline) {
      slot.timerAt = deadline;
      at(deadline, new TimerEvent(slot));
    }
  }

  private final class TimerEvent extends Event {
    private final Slot slot;

    TimerEvent(Slot slot) {
      this.slot = slot;
    }

    @Override
    void fire() {
      if (slot.timerAt != time) {
        return; // a shorter wait queued an earlier event, which took over
      }
      slot.timerAt = Long.MAX_VALUE;
      SessionWait wait = slot.wait;
      if (wait == null || !wait.isPending()) {
        return;
      }
      if (slot.deadline > now) {
        slot.timerAt = slot.deadline;
        at(slot.deadline, this);
        return;
      }
      slot.wait = null;
      log.add(now, EventLog.TIMEOUT, wait.session(), 0, 0);
      wait.timeOut();
    }
  }

  /** Makes a session ready to start now, unless it has started. */
  void start(Slot slot) {
    if (slot.started) {
      return;
    }
    slot.started = true;
    log.add(now, EventLog.START, slot.fiber.index(), slot.client ? 1 : 0, 0);
    scheduler.start(slot.fiber);
  }

  /** Cancels a session that has not ended: its wait ends, or it ends as it starts. */
  void cancel(Slot slot) {
    if (slot.ended) {
      return;
    }
    slot.fiber.cancel();
    start(slot);
  }

  /**
   * Cancels every session that has not ended and runs them to their end, and any that their ends
   * start (a server's next queued connection), until none is left.
   */
  void endAll() {
    if (made != indexes) {
      throw new IllegalStateException((indexes - made) + " sessions reserved and never made");
    }
    for (int from = 0; from < indexes; ) {
      int to = indexes;
      for (int i = from; i < to; i++) {
        cancel(slot(i));
      }
      runReady();
      int firstLeft = to;
      for (int i = from; i < to; i++) {
        if (!slot(i).ended) {
          firstLeft = i;
          break;
        }
      }
      if (firstLeft < to) {
        throw new IllegalStateException("session " + firstLeft + " did not end when cancelled");
      }
      from = to;
    }
  }

  /**
   * Runs the world: every ready session, then the next event, and so on, until {@code done}
   * holds, nothing is left to happen, or the next event lies past {@code limitNanos}.
   *
   * @return true if {@code done} held
   */
  boolean run(java.util.function.BooleanSupplier done, long limitNanos) {
    boolean[] result = new boolean[1];
    scheduler.drive(() -> result[0] = loop(done, limitNanos));
    return result[0];
  }

  private boolean loop(java.util.function.BooleanSupplier done, long limitNanos) {
    for (;;) {
      runReady();
      if (done.getAsBoolean()) {
        return true;
      }
      Event event = queue.poll();
      if (event == null) {
        return false;
      }
      if (event.time > limitNanos) {
        queue.putBack(event);
        now = limitNanos;
        return false;
      }
      now = event.time;
      event.fire();
      keepUpWithLog();
    }
  }

  /**
   * Lets the log's hashing thread catch up if it has fallen far behind; only between slices and
   * events, where no slice runs and so the BlockWatch takes no wait for a blocked session.
   */
  void keepUpWithLog() {
    if (log.behind()) {
      log.keepUp();
    }
  }

  /** Runs every ready session, round by round; each round in an order drawn from the seed. */
  void runReady() {
    for (;;) {
      DrivenSession first = scheduler.pollReady();
      if (first == null) {
        return;
      }
      round.clear();
      round.add(first);
      if (shuffle) {
        for (DrivenSession f = scheduler.pollReady(); f != null; f = scheduler.pollReady()) {
          round.add(f);
        }
        for (int i = round.size() - 1; i > 0; i--) {
          int j = random.nextInt(i + 1);
          DrivenSession t = round.get(i);
          round.set(i, round.get(j));
          round.set(j, t);
        }
      }
      for (int i = 0; i < round.size(); i++) {
        runSlice(round.get(i));
        keepUpWithLog();
      }
    }
  }

  private void runSlice(DrivenSession fiber) {
    Slot slot = slot(fiber.index());
    log.add(now, EventLog.RUN, fiber.index(), 0, 0);
    running = slot;
    RUNNING_INDEX.setRelease(this, fiber.index());
    SLICE.setRelease(this, slices++);
    try {
      scheduler.runSlice(fiber);
    } finally {
      SLICE.setRelease(this, -1L);
      running = null;
    }
    BlockedSessionError error = blocked;
    if (error != null) {
      Thread.interrupted(); // the watcher's interrupt, if the session did not take it
      throw error;
    }
    if (!fiber.isFinished()) {
      // A waiting session keeps only the room its frames take (see DrivenSession.trimCapturedStack).
      fiber.trimCapturedStack();
    }
    if (fiber.isFinished() && !slot.ended) {
      ended(slot, fiber);
    }
  }

  private void ended(Slot slot, DrivenSession fiber) {
    slot.ended = true;
    slot.wait = null;
    Endpoint end = slot.endpoint;
    slot.endpoint = null;
    log.add(now, EventLog.END, fiber.index(), fiber.failure() == null ? 0 : 1, 0);
    if (slot.client) {
      clientsEnded++;
    } else {
      Listener listener = slot.servedBy;
      if (listener != null) {
        slot.servedBy = null;
        listener.ended(end); // may start a server session for the next queued connection
      }
    }
  }

  /** The client sessions that have ended. */
  int clientsEnded() {
    return clientsEnded;
  }

  /** The connector of {@code host} in this run, made on first use. */
  SimConnector connector(String host) {
    return connectors.computeIfAbsent(host, h -> new SimConnector(this, net, h));
  }

  /** Closes every host's connector: the transports still open are closed. */
  void closeConnectors() {
    for (SimConnector c : connectors.values()) {
      c.close();
    }
  }

  /** The slice running now, or -1 between slices; any thread. */
  long slice() {
    return slice;
  }

  /** The index of the session whose slice runs, for the {@link BlockWatch}. */
  int runningIndex() {
    return runningIndex;
  }

  /** The watcher found a session blocking this thread; true if it is the first. */
  synchronized boolean blocked(BlockedSessionError error) {
    if (blocked != null) {
      return false;
    }
    blocked = error;
    return true;
  }

  /** Events still queued. */
  int pending() {
    return queue.size();
  }
}
