package io.weft.continuations.runtime.spi;

import io.weft.continuations.ContinuationClassLoader;
import io.weft.continuations.internal.runtime.Fiber;
import io.weft.continuations.internal.runtime.Scheduler;
import io.weft.continuations.internal.runtime.SessionContext;
import io.weft.continuations.internal.runtime.SessionFrame;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import java.lang.reflect.Constructor;
import java.net.SocketAddress;
import java.util.Objects;

/**
 * A scheduler with no thread of its own: its caller makes sessions, starts them, takes them off
 * the ready queue one at a time and runs each for one slice, and keeps their waits' timeouts on its
 * own clock, all on one thread. What a deterministic simulation needs: the ready queue is FIFO and
 * nothing else runs a session, so the order of the slices follows only from the order of the
 * wake-ups, which the caller controls.
 *
 * <p>Lifecycle: {@link #create}, then {@link #session} and {@link #start} per session, and a loop
 * inside {@link #drive} that alternates {@link #pollReady()}/{@link #runSlice} with whatever the
 * caller's world does between slices (firing timeouts, delivering bytes). Nothing to close: a
 * session left suspended is garbage once the caller drops it; cancel and run it to its end if its
 * own {@code finally} blocks must run.
 *
 * <p>Not thread-safe: every method, and every session's code, runs on the calling thread. A
 * session's wake-up from another thread (a real socket) would enqueue it there, which is why a
 * simulation gives its sessions no real I/O.
 */
public final class DrivenScheduler {
  private final Scheduler scheduler;
  private final Constructor<?> frame;

  /**
   * The failure of a session of this scheduler cancelled before it connects when the heap has no
   * room for one of its own: made with the scheduler (see {@code SessionContext.cancelledWithNoRoom}).
   */
  private final io.weft.continuations.spi.SessionCancelledException cancelledWithNoRoom =
      new io.weft.continuations.spi.SessionCancelledException(SessionContext.CANCELLED_WITH_NO_ROOM);

  private DrivenScheduler(Scheduler scheduler, Constructor<?> frame) {
    this.scheduler = scheduler;
    this.frame = frame;
  }

  /**
   * A scheduler for sessions whose task classes come from {@code loader}, with the caller's timer.
   * Make it on the thread that will drive it: the sessions' inheritable thread-locals start from
   * that thread's.
   *
   * @param loader the loader that rewrote the tasks' classes; each session's bottom frame is
   *     defined by it too
   * @param timeouts the caller's timer
   * @return a scheduler run by the calling thread
   * @throws IllegalStateException if the loader cannot define the runtime's session frame
   */
  public static DrivenScheduler create(ContinuationClassLoader loader, WaitTimeouts timeouts) {
    Objects.requireNonNull(loader, "loader");
    Objects.requireNonNull(timeouts, "timeouts");
    Constructor<?> frame;
    try {
      frame = Class.forName(SessionFrame.class.getName(), true, loader).getConstructor(SessionContext.class);
    } catch (ClassNotFoundException | NoSuchMethodException e) {
      throw new IllegalStateException("cannot load the session frame through " + loader + ": " + e, e);
    }
    return new DrivenScheduler(Scheduler.driven(timeouts), frame);
  }

  /**
   * Makes a session that runs {@code task}; it waits until {@link #start}.
   *
   * @param index the session's index, for the caller's bookkeeping and the wait's
   *     {@link SessionWait#session()}
   * @param connector what the task's transport comes from
   * @param address what the connector connects to
   * @param timeout the session's timeout
   * @param task the task, an instance of a class from this scheduler's loader
   * @return the session, not started
   */
  public DrivenSession session(int index, Connector connector, SocketAddress address, Timeout timeout,
      SessionTask<?> task) {
    Fiber fiber = new Fiber(index, connector, address, timeout, task, scheduler, false);
    fiber.cancelledWithNoRoom(cancelledWithNoRoom);
    return fiber;
  }

  /**
   * Starts {@code session}: it is ready at once, at the back of the ready queue.
   *
   * @param session a session made by this scheduler, not started before
   * @throws IllegalStateException if the session frame cannot be made
   */
  public void start(DrivenSession session) {
    Fiber fiber = (Fiber) session;
    Runnable bottom;
    try {
      bottom = (Runnable) frame.newInstance(fiber);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot make the session frame: " + e, e);
    }
    scheduler.start(fiber, bottom);
  }

  /**
   * Takes the next ready session off the queue, for the caller to {@link #runSlice} it (or to hold
   * it back and run it after others: the caller owns it now).
   *
   * @return the session, or null when none is ready
   */
  public DrivenSession pollReady() {
    return scheduler.pollReady();
  }

  /**
   * Runs a session taken with {@link #pollReady()} until it suspends or ends; inside
   * {@link #drive}.
   *
   * @param session the session
   */
  public void runSlice(DrivenSession session) {
    scheduler.runSlice((Fiber) session);
  }

  /**
   * Runs {@code loop}, which runs the slices, on the calling thread inside an outer continuation
   * that never suspends, as the runtime's workers run theirs: a session's resume then costs no
   * thread-local entry of the engine's. What {@code loop} throws is thrown here.
   *
   * @param loop the caller's loop
   */
  public void drive(Runnable loop) {
    scheduler.drive(loop);
  }
}
