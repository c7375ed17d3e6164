package io.weft.continuations;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The session threads of one THREADS or VIRTUAL_THREADS run, for its cancel and its end: those
 * running, by session index (cancel interrupts them), and those whose session has ended but which
 * have not yet ended themselves (the last steps after their end's bookkeeping: the permit's
 * release, an uncaught-exception handler), which the run's own thread waits for before
 * {@code run()} returns ({@link #stillEnding()}). No session thread waits for another: a session
 * thread's end makes no join and no park of its own, since in VIRTUAL_THREADS such a wait's wake-up
 * is an unpark, a submit to the JDK's carrier pool that a full heap can fail (docs/errors.md). It
 * takes this object's monitor, which can still block it when contended: on JDK 24 and later a
 * virtual thread blocked on a monitor unmounts and is woken by a submit (which JDK 25 retries on
 * {@code OutOfMemoryError}); on JDK 21 it pins its carrier instead. Only the ends and the run's own
 * thread take it: the running threads are read and written without it ({@link #running(int)},
 * {@link #started}), so the aborted run's cancel, which looks at every slot every 50 ms, never
 * holds it against a session thread's end.
 *
 * <p>The threads kept are those ended but still going and at most about as many gone ones among
 * them: at each session thread's end the gone threads at the head of the ring are dropped (each
 * once, so one per end on average), and at most one still going is put behind the others, which
 * brings the next ones to the head. Both arrays are made with the run, so a session thread's end
 * allocates nothing. The ring's methods hold this object's monitor for a few steps and never wait
 * under it; any thread.
 */
final class SessionThreads {
  /** By session index; volatile slots, read by the cancel without the monitor. */
  private final AtomicReferenceArray<Thread> running;
  /** A ring of the threads whose sessions have ended and which may still be going, oldest first. */
  private final Thread[] ending;
  private int head;
  private int size;

  /** For a run of {@code sessions} sessions. */
  SessionThreads(int sessions) {
    running = new AtomicReferenceArray<>(sessions);
    ending = new Thread[Math.max(1, sessions)];
  }

  /** How many sessions: the slots {@link #running(int)} takes. */
  int sessions() {
    return running.length();
  }

  /** Session {@code slot}'s thread {@code thread} runs its session. Takes no monitor. */
  void started(int slot, Thread thread) {
    running.set(slot, thread);
  }

  /**
   * The thread running session {@code slot}, or null (not started, or ended). Takes no monitor:
   * the cancel's look at every slot never blocks, nor is blocked by, a session thread's end.
   */
  Thread running(int slot) {
    return running.get(slot);
  }

  /**
   * Session {@code slot}'s thread, {@code thread}, has ended its session and has only its last
   * steps left: no longer running (cancel no longer interrupts it), kept until it is gone (so
   * that the run's end waits for it). Drops the gone threads at the ring's head, puts the oldest
   * still going, if any, behind the others, and drops the gone ones that then lead.
   * Allocates nothing, waits for nothing. Each session's thread ends once: the ring never holds
   * more than the run's sessions.
   */
  void ended(int slot, Thread thread) {
    running.set(slot, null);
    endedKept(thread);
  }

  private synchronized void endedKept(Thread thread) {
    dropGoneAtHead();
    if (size > 0) {
      put(take());
      dropGoneAtHead();
    }
    put(thread);
  }

  /** Drops the threads at the ring's head that are gone, up to the first still going. */
  private void dropGoneAtHead() {
    while (size > 0 && !ending[head].isAlive()) {
      take();
    }
  }

  /**
   * One of the threads whose sessions have ended that has not yet ended itself, or null once they
   * all have (those found gone are dropped). The run's thread waits for it (joins a platform one,
   * looks at a virtual one between short parks: ThreadRunner.awaitGone), then asks again.
   */
  synchronized Thread stillEnding() {
    dropGoneAtHead();
    return size > 0 ? ending[head] : null;
  }

  /** How many threads are kept as ended but perhaps still going (tests). */
  synchronized int kept() {
    return size;
  }

  private Thread take() {
    Thread t = ending[head];
    ending[head] = null;
    head = head + 1 == ending.length ? 0 : head + 1;
    size--;
    return t;
  }

  private void put(Thread t) {
    int tail = head + size;
    if (tail >= ending.length) {
      tail -= ending.length;
    }
    ending[tail] = t;
    size++;
  }
}
