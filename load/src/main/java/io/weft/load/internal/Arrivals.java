package io.weft.load.internal;

import io.weft.continuations.spi.WaitRegistration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The open model's dispatcher: one thread that releases iterations at their intended start
 * times, as the {@link Stages} schedule them, to the sessions that are free.
 *
 * <p>A free session asks {@link Slot#next()}: it gets the oldest arrival that is already due
 * and waiting (the backlog), or the end of the run, or {@link #NONE}, and then waits on its slot
 * ({@code Suspend.await(slot, FOREVER)}). When an arrival is due and a session is waiting, the
 * dispatcher hands the arrival's intended time to that session's slot and wakes it; when none is
 * waiting the arrival joins the backlog, and its intended time stays what it was, so the time it
 * spends there is part of the latency that session then records (wrk2's correction: a stalled
 * server shows as the stall). The number of sessions is the cap on iterations in flight.
 *
 * <p>Sharding: arrival {@code j} of the whole schedule belongs to shard {@code j mod n}, so the
 * shards of one schedule together make exactly the arrivals of the unsharded run.
 *
 * <p>Lifecycle: {@link #start} once; the thread ends after the last arrival (then every free
 * session is told the end) or at {@link #stop()}.
 */
public final class Arrivals {
  /** From {@link Slot#next()}: no arrival yet, wait on the slot. */
  public static final long NONE = Long.MIN_VALUE + 1;
  /** From {@link Slot#next()}: the schedule is over and its backlog empty. */
  public static final long END = Long.MIN_VALUE;

  private final Stages stages;
  private final Ticker ticker;
  private final int shard;
  private final int shards;
  private final ArrayDeque<Slot> idle = new ArrayDeque<>();
  /**
   * Every slot made, one a session: once nothing is left to hand out (the schedule has ended and
   * its backlog is empty) those waiting on {@link Slot#whenFinished()} are woken.
   */
  private final List<Slot> made = new ArrayList<>();
  private long[] backlog = new long[64];
  private int head;
  private int size;
  private boolean ended;
  private volatile boolean stopped;
  private volatile long dispatched;
  private Thread thread;
  private int slots;
  private int startWhen;
  private int slotsAtLastCheck;

  public Arrivals(Stages stages, int shard, int shards) {
    this(stages, shard, shards, Ticker.system());
  }

  /** A dispatcher that reads and waits for its arrivals' due times on {@code ticker}. */
  public Arrivals(Stages stages, int shard, int shards, Ticker ticker) {
    this.stages = stages;
    this.ticker = ticker;
    this.shard = shard;
    this.shards = shards;
  }

  /**
   * A new session's slot. The slot that makes {@link #startWhen} sessions starts the schedule,
   * so that arrivals do not queue behind the sessions' own connects.
   */
  public Slot slot() {
    boolean go;
    Slot slot = new Slot();
    synchronized (this) {
      slots++;
      made.add(slot);
      go = startWhen > 0 && slots == startWhen;
    }
    if (go) {
      start();
    }
    return slot;
  }

  /** Starts the schedule once {@code sessions} slots exist (or at {@link #start()}, if sooner); 0 for never. */
  public synchronized void startWhen(int sessions) {
    this.startWhen = sessions;
  }

  /** Starts the schedule now, with its time 0 now, unless it has started already. */
  public void start() {
    synchronized (this) {
      if (thread != null || stopped) {
        return;
      }
      long startNanos = ticker.nanoTime();
      thread = new Thread(() -> dispatch(startNanos), "weft-load-arrivals");
      thread.setDaemon(true);
      thread.start();
    }
  }

  public synchronized boolean started() {
    return thread != null;
  }

  /**
   * Starts the schedule if sessions have taken slots but no new one came since the last call:
   * the sessions that are still missing failed before they could (a refused connect). Called
   * once a second.
   */
  public void startIfStalled() {
    boolean go;
    synchronized (this) {
      go = thread == null && slots > 0 && slots == slotsAtLastCheck;
      slotsAtLastCheck = slots;
    }
    if (go) {
      start();
    }
  }

  /** Ends the schedule now: no more arrivals; the backlog is dropped. */
  public void stop() {
    stopped = true;
    Thread t;
    synchronized (this) {
      t = thread;
      size = 0;
    }
    if (t != null) {
      LockSupport.unpark(t);
    }
    end();
  }

  /** Arrivals handed out or queued so far. */
  public long dispatched() {
    return dispatched;
  }

  private void dispatch(long startNanos) {
    long j = shard;
    double at = stages.arrivalSeconds(j);
    while (!stopped && !Double.isNaN(at)) {
      long due = startNanos + (long) (at * 1e9);
      if (due - ticker.nanoTime() > 0L) {
        ticker.parkUntil(due);
        continue;
      }
      arrive(due);
      j += shards;
      at = stages.arrivalSeconds(j);
    }
    end();
  }

  /** One arrival due at {@code intendedNanos}: to a waiting session, or to the backlog. */
  void arrive(long intendedNanos) {
    Runnable wake;
    synchronized (this) {
      if (stopped) {
        // stop() dropped the backlog and told the sessions nothing is left: no arrival after it.
        return;
      }
      dispatched++;
      Slot s = idle.pollFirst();
      if (s == null) {
        push(intendedNanos);
        return;
      }
      s.idle = false;
      s.ticket = intendedNanos;
      wake = s.wake;
      s.wake = null;
    }
    if (wake != null) {
      wake.run();
    }
  }

  /**
   * The schedule's end (its last arrival handed out or queued, or {@link #stop()}): the idle
   * sessions are told; those backing off only once the backlog is empty too (see
   * {@link Slot#whenFinished()}). Package-private for tests, which end a schedule without a
   * dispatcher thread and keep its backlog ({@link #stop()} drops it).
   */
  void end() {
    List<Runnable> wakes = new ArrayList<>();
    synchronized (this) {
      ended = true;
      for (Slot s : idle) {
        s.idle = false;
        if (s.wake != null) {
          wakes.add(s.wake);
          s.wake = null;
        }
      }
      idle.clear();
      if (size == 0) {
        takeFinishWakes(wakes);
      }
    }
    for (Runnable w : wakes) {
      w.run();
    }
  }

  /** Moves the wake-ups of the sessions waiting on {@link Slot#whenFinished()} into {@code wakes}. Under the lock. */
  private void takeFinishWakes(List<Runnable> wakes) {
    for (Slot s : made) {
      if (s.finishWake != null) {
        wakes.add(s.finishWake);
        s.finishWake = null;
      }
    }
  }

  private void push(long t) {
    if (size == backlog.length) {
      long[] bigger = new long[backlog.length * 2];
      for (int i = 0; i < size; i++) {
        bigger[i] = backlog[(head + i) % backlog.length];
      }
      backlog = bigger;
      head = 0;
    }
    backlog[(head + size) % backlog.length] = t;
    size++;
  }

  private long pop() {
    long t = backlog[head];
    head = (head + 1) % backlog.length;
    size--;
    return t;
  }

  /** Backlog length now: arrivals due and waiting for a free session. */
  public synchronized int backlog() {
    return size;
  }

  /** One session's place at the dispatcher; also what it waits on. */
  public final class Slot implements WaitRegistration {
    private long ticket = NONE;
    private Runnable wake;
    private boolean idle;
    /** Who waits on {@link #whenFinished()}: the session, backing off. */
    private Runnable finishWake;
    private final WaitRegistration whenFinished = wakeUp -> {
      boolean now;
      synchronized (Arrivals.this) {
        now = finishedLocked();
        if (!now) {
          finishWake = wakeUp;
        }
      }
      if (now) {
        wakeUp.run();
      }
    };

    private Slot() {}

    /**
     * What this slot's session waits on to be woken once nothing is left for it ({@link #finished()}:
     * the schedule has ended, by its last arrival handed out or queued or by {@link #stop()}, and
     * its backlog is empty), and by nothing else: a session backing off after a failure takes no
     * arrivals, waits its whole backoff while any are left (so a backlog is drained at the
     * backoff's pace, not as fast as the client can reconnect), and does not hold the run's end
     * back by it once none is.
     */
    public WaitRegistration whenFinished() {
      return whenFinished;
    }

    /**
     * Whether nothing is left for this slot: the schedule has ended and its backlog is empty, so
     * {@link #next()} answers {@link #END}.
     */
    public boolean finished() {
      synchronized (Arrivals.this) {
        return finishedLocked();
      }
    }

    private boolean finishedLocked() {
      return ended && size == 0 && ticket == NONE;
    }

    /**
     * The intended start (the ticker's time) of this session's next iteration; {@link #END} when there
     * are no more; {@link #NONE} when none is due yet: then wait on this slot and ask again.
     */
    public long next() {
      List<Runnable> wakes = null;
      long t;
      synchronized (Arrivals.this) {
        if (ticket != NONE) {
          t = ticket;
          ticket = NONE;
        } else if (size > 0) {
          t = pop();
          if (size == 0 && ended) {
            // The backlog's last arrival after the schedule's end: the sessions backing off are done.
            wakes = new ArrayList<>();
            takeFinishWakes(wakes);
          }
        } else if (ended) {
          t = END;
        } else {
          if (!idle) {
            idle = true;
            Arrivals.this.idle.addLast(this);
          }
          t = NONE;
        }
      }
      if (wakes != null) {
        for (Runnable w : wakes) {
          w.run();
        }
      }
      return t;
    }

    @Override
    public void register(Runnable wakeUp) {
      boolean now;
      synchronized (Arrivals.this) {
        now = ticket != NONE || ended || size > 0;
        if (!now) {
          wake = wakeUp;
        }
      }
      if (now) {
        wakeUp.run();
      }
    }
  }
}
