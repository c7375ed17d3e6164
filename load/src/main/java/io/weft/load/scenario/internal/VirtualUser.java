package io.weft.load.scenario.internal;

import io.weft.continuations.ConnectWindow;
import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.spi.Suspend;
import io.weft.load.internal.Arrivals;
import io.weft.load.internal.Metrics;
import io.weft.load.internal.Plan;
import io.weft.load.record.OpRecorder;
import io.weft.load.scenario.Scenario;
import io.weft.transport.Transport;
import io.weft.transport.spi.Deadlines;
import io.weft.transport.spi.ReportsArrival;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Map;

/**
 * The session task of every load run: one virtual user. It makes the scenario, then runs
 * iterations as the plan's workload model says (a count or a time, with think time, in the
 * closed model; one per arrival taken from the dispatcher in the open model). It opens its own
 * connections, paced with the run's others, and a new one after any failure, backing off while
 * connects or iterations fail. It waits only through {@link Suspend#await}, so in continuation mode
 * a waiting user is a suspended continuation, and returns the number of iterations it ran.
 *
 * <p>In continuation mode this class and the scenario are loaded by the runner's instrumenting
 * class loader, while the plan and the metrics come from the application's: only those, the
 * JDK and the transport API cross between them.
 */
public final class VirtualUser implements io.weft.transport.SessionTask<Long> {
  private final Plan plan;
  private final Constructor<?> scenario;
  private final boolean withParams;

  public VirtualUser(Plan plan) {
    this.plan = plan;
    Class<?> type;
    try {
      type = Class.forName(plan.scenarioClass(), true, VirtualUser.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException("scenario class not found: " + plan.scenarioClass(), e);
    }
    if (!Scenario.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(type.getName() + " does not implement " + Scenario.class.getName());
    }
    Constructor<?> c;
    boolean params;
    try {
      c = type.getConstructor(Map.class);
      params = true;
    } catch (NoSuchMethodException e) {
      try {
        c = type.getConstructor();
        params = false;
      } catch (NoSuchMethodException e2) {
        throw new IllegalArgumentException(type.getName() + " needs a public constructor taking Map<String, String> or none");
      }
    }
    this.scenario = c;
    this.withParams = params;
  }

  private Scenario newScenario() throws Exception {
    try {
      return (Scenario) (withParams ? scenario.newInstance(plan.params()) : scenario.newInstance());
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      throw cause instanceof Exception ? (Exception) cause : e;
    }
  }

  /**
   * Runs the user. The runner's {@code transport} is not connected (weft-load's runner opens
   * nothing): the user opens its own, paced with the run's other connects, and again after any
   * failure, so that no call is ever made on a transport known to be closed.
   */
  @Override
  public Long run(Transport transport, int index) throws Exception {
    OpRecorder ops = plan.newSession();
    Scenario user = newScenario();
    Link link = new Link(user, index, ops);
    long done = 0L;
    try {
      if (plan.open()) {
        // Connected (or failed once) before taking arrivals, so that the schedule does not
        // start behind the connects; a user that failed retries within its next iteration.
        link.ensure();
        Arrivals.Slot slot = plan.slot();
        while (true) {
          link.backOffTill(slot);
          long intended = slot.next();
          while (intended == Arrivals.NONE) {
            Suspend.await(slot, Deadlines.FOREVER);
            intended = slot.next();
          }
          if (intended == Arrivals.END || plan.stopping()) {
            break;
          }
          plan.begin(ops, intended);
          try {
            link.iteration();
          } finally {
            plan.end();
          }
          done++;
        }
      } else {
        long think = plan.thinkNanos();
        while (plan.another(done)) {
          if (!link.backOff(plan.remainingNanos())) {
            continue;
          }
          if (done > 0L && think > 0L) {
            pause(think);
          }
          plan.begin(ops);
          try {
            link.iteration();
          } finally {
            plan.end();
          }
          done++;
        }
      }
      return done;
    } finally {
      link.close();
    }
  }

  /**
   * Open model: waits {@code backoffNanos} on {@code slot}, taking no arrivals meanwhile, cut short
   * only once nothing is left for this user ({@link Arrivals.Slot#finished()}: the schedule has
   * ended and its backlog is empty, so its next answer is {@link Arrivals#END}). While arrivals
   * are left, queued behind users that backed off, every backoff is waited whole: a failing
   * server's backlog is drained at the backoff's pace, not as fast as the client can reconnect;
   * once none is, the run does not end late for a backoff. Measured on {@code clock}, the run's,
   * as the wait's timer is in continuation mode (elsewhere a wait parks in real time, and the
   * loop waits on until the clock says the backoff is over).
   *
   * @param clock the run's clock ({@link Plan#clock()})
   * @return the part waited: {@code backoffNanos}, less if cut short, 0 if nothing was left at once
   */
  public static long backOffTill(Arrivals.Slot slot, long backoffNanos, io.weft.transport.spi.Ticker clock)
      throws IOException {
    long from = clock.nanoTime();
    long waited = 0L;
    while (waited < backoffNanos && !slot.finished()) {
      Suspend.await(slot.whenFinished(), backoffNanos - waited);
      waited = Math.min(backoffNanos, clock.nanoTime() - from);
    }
    return waited;
  }

  /**
   * Waits {@code nanos} of the run's clock ({@link Plan#clock()}): think time, a pacing turn, a
   * backoff. In continuation mode the runtime's timer ends the wait when that clock reads its end
   * (a test's clock: when the test moves it there); elsewhere the thread parks in real time and
   * then, if the clock says the wait is not over (a test's clock that has not moved so far), parks
   * on for what is left of it, as the blocking connectors' waits do.
   */
  private void pause(long nanos) throws IOException {
    io.weft.transport.spi.Ticker clock = plan.clock();
    long now = clock.nanoTime();
    long end = now + nanos;
    do {
      Suspend.await(plan.pauseFrom(now), end - now);
      now = clock.nanoTime();
    } while (end - now > 0L);
  }

  /**
   * One user's connection: opened when an iteration needs it, ended by any failure. After a
   * failed connect, and after a failed iteration (which ended its connection), the user waits a
   * backoff (doubling with each failure in a row, bounded) before it tries again; only an
   * iteration that succeeds starts the count afresh. So a server that accepts and then rejects or
   * garbles is retried at the backoff's pace, as a refusing one is, whatever the run's pacing (a
   * windowed run has none, and its window's place comes back with the rejection's first bytes).
   */
  private final class Link {
    private final Scenario user;
    private final int index;
    private final OpRecorder ops;
    private Transport current;
    /** Failed connects and failed iterations in a row: the backoff's exponent. */
    private int failures;
    private long backoffNanos;
    /**
     * This user's place in the run's connect window, from before a first connect or a reconnect
     * after a failure until it is heard from.
     */
    private ConnectWindow.Slot place;
    /** The place of the open connection, given back at its close if its first bytes did not already. */
    private ConnectWindow.Slot closing;

    Link(Scenario user, int index, OpRecorder ops) {
      this.user = user;
      this.index = index;
      this.ops = ops;
    }

    /** An open transport that {@code connected} has seen, or false (a connect error counted). */
    boolean ensure() throws Exception {
      // A user's first connect and every reconnect after a failure take a place in the window and
      // a turn of the run's pacing, if it has them: those are the bursts (the ramp, a server
      // restart) that overflow a listen queue. A reconnect after a failure has also waited its
      // backoff (backOff, before the iteration).
      // A reconnect after a connection that ended cleanly (the scenario closed it, as
      // Connection: close does) is not paced: it follows the server's own pace, since the user
      // has just been served, as wrk's and redis-benchmark's reconnects do.
      boolean paced = true;
      if (current != null) {
        if (current.isOpen()) {
          return true;
        }
        close();
        paced = false;
      }
      if (paced) {
        // A place in the connect window first (at most so many users connected and not yet heard
        // from), then the turn; neither wait is part of the connect's time.
        if (plan.windowed()) {
          enterWindow();
        }
        long wait = plan.connectWaitNanos();
        if (wait > 0L) {
          pause(wait);
        }
      }
      Transport t;
      try {
        if (place != null) {
          // The window's hold bound starts at the connect, not before the pacing turn.
          place.connecting();
        }
        plan.connectBegun();
        OpRecorder.Timer timer = ops.start(Metrics.CONNECT);
        t = plan.connector().connect(plan.address(index), plan.timeout());
        timer.stop();
      } catch (SessionCancelledException e) {
        leaveWindow();
        throw e;
      } catch (Exception e) {
        ConnectWindow.Slot held = place;
        if (held != null) {
          // A growing connect window halves: the server refused, or its queue dropped the handshake.
          held.connectFailed();
        }
        leaveWindow();
        plan.failed(ops, e, Metrics.CONNECT);
        failed();
        return false;
      }
      ConnectWindow.Slot held = place;
      if (held != null) {
        place = null;
        // The place goes back with the first bytes from the server, or when the connection closes.
        closing = held;
        if (t instanceof ReportsArrival) {
          ((ReportsArrival) t).whenHeardFrom(held);
        }
      }
      current = t;
      plan.connected(ops, t);
      try {
        user.connected(t, ops);
        return true;
      } catch (SessionCancelledException e) {
        throw e;
      } catch (Exception e) {
        plan.failed(ops, e, Metrics.CONNECT);
        close();
        failed();
        return false;
      }
    }

    /**
     * One iteration on an open connection. Any exception ends the connection as well as the
     * iteration: after it the stream's position and the client's state are unknown (a reply
     * half read, a client that refuses further calls), so the next iteration starts afresh.
     */
    void iteration() throws Exception {
      if (!ensure()) {
        return;
      }
      try {
        user.iteration(ops);
        plan.succeeded();
        failures = 0;
      } catch (SessionCancelledException e) {
        throw e;
      } catch (Exception e) {
        plan.failed(ops, e, Metrics.ITERATION);
        close();
        failed();
      }
    }

    /** A connect or an iteration failed: the next connect waits a backoff, longer for each failure in a row. */
    private void failed() {
      backoffNanos = plan.backoffNanos(++failures);
    }

    /**
     * Waits out the backoff after a failed connect or iteration, at most {@code limitNanos}; false if it was
     * cut short by the limit (the run is ending), true otherwise.
     */
    boolean backOff(long limitNanos) throws Exception {
      long backoff = backoffNanos;
      if (backoff <= 0L) {
        return true;
      }
      backoffNanos = 0L;
      boolean whole = backoff <= limitNanos;
      long wait = whole ? backoff : limitNanos;
      if (wait > 0L) {
        pause(wait);
        // Counted once waited: the part waited, if the run's end cut it short.
        plan.backedOff(backoff, wait);
      }
      return whole;
    }

    /**
     * Open model: waits out the backoff after a failed connect or iteration, taking no arrivals
     * meanwhile (see {@link VirtualUser#backOffTill}), and counts the part waited.
     */
    void backOffTill(Arrivals.Slot slot) throws Exception {
      long backoff = backoffNanos;
      if (backoff <= 0L) {
        return;
      }
      backoffNanos = 0L;
      plan.backedOff(backoff, VirtualUser.backOffTill(slot, backoff, plan.clock()));
    }

    void close() {
      if (current != null) {
        current.close();
        current = null;
        plan.connected(ops, null);
      }
      leaveWindow();
    }

    /** Waits for a place in the run's connect window (suspended in continuation mode). */
    private void enterWindow() throws Exception {
      ConnectWindow.Slot slot = plan.tryEnterWindow(index);
      if (slot == null) {
        ConnectWindow.Waiter waiter = plan.windowWaiter(index);
        try {
          while ((slot = plan.tryEnterWindow(index)) == null) {
            try {
              // One waiter watches the clock; the others wait for a wake-up (no herd at an overdue place).
              Suspend.await(waiter, waiter.waitNanos());
            } finally {
              waiter.waited();
            }
          }
        } finally {
          waiter.leave();
        }
      }
      place = slot;
    }

    /** Gives back a place still held (a failed connect, a close before the first bytes): idempotent. */
    private void leaveWindow() {
      ConnectWindow.Slot held = place != null ? place : closing;
      place = null;
      closing = null;
      if (held != null) {
        held.release();
      }
    }
  }
}
