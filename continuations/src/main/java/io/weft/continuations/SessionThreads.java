package io.weft.continuations;

/**
 * The session threads of one THREADS or VIRTUAL_THREADS run, for its cancel and its end: those
 * running, by session index (cancel interrupts them), and those whose session has ended but which
 * have not yet ended themselves (the last steps after their end's bookkeeping: the permit's
 * release, an uncaught-exception handler), which the run's own thread waits for before
 * {@code run()} returns ({@link #stillEnding()}). No session thread waits for another: a session
 * thread's end makes no park, no unpark and no join. Before, each ending thread joined the one
 * that had ended before it, so that the run's joining the last one waited for them all; in
 * VIRTUAL_THREADS every such join that had to wait was a park, and every thread's end an unpark
 * of its joiner, a submit to the JDK's carrier pool that in a full heap can fail and, on JDK 21,
 * end the carrier (docs/errors.md).
 *
 * <p>A long run keeps no thread that has ended: at each session thread's end the two that ended
 * longest ago are looked at, those gone dropped, one still going put behind the others, so that
 * the threads kept are about those ended but still going. Both arrays are made with the run, so a
 * session thread's end allocates nothing. All methods hold this object's monitor for a few steps
 * and never wait under it; any thread.
 */
final class SessionThreads {
  /** How many of the threads ended before are looked at per end: more than one, so that the kept shrink. */
  private static final int LOOKED_AT_PER_END = 2;

  private final Thread[] running;
  /** A ring of the threads whose sessions have ended and which may still be going, oldest first. */
  private final Thread[] ending;
  private int head;
  private int size;

  /** For a run of {@code sessions} sessions. */
  SessionThreads(int sessions) {
    running = new Thread[sessions];
    ending = new Thread[Math.max(1, sessions)];
  }

  /** How many sessions: the slots {@link #running(int)} takes. */
  int sessions() {
    return running.length;
  }

  /** Session {@code slot}'s thread {@code thread} runs its session. */
  synchronized void started(int slot, Thread thread) {
    running[slot] = thread;
  }

  /** The thread running session {@code slot}, or null (not started, or ended). */
  synchronized Thread running(int slot) {
    return running[slot];
  }

  /**
   * Session {@code slot}'s thread, {@code thread}, has ended its session and has only its last
   * steps left: no longer running (cancel no longer interrupts it), kept until it is gone (so
   * that the run's end waits for it). Looks at the threads ended longest ago, dropping those gone.
   * Allocates nothing, waits for nothing. Each session's thread ends once: the ring never holds
   * more than the run's sessions.
   */
  synchronized void ended(int slot, Thread thread) {
    running[slot] = null;
    for (int i = 0; i < LOOKED_AT_PER_END && size > 0; i++) {
      Thread oldest = take();
      if (oldest.isAlive()) {
        put(oldest);
      }
    }
    put(thread);
  }

  /**
   * One of the threads whose sessions have ended that has not yet ended itself, or null once they
   * all have (those found gone are dropped). The run's thread joins it, then asks again.
   */
  synchronized Thread stillEnding() {
    while (size > 0) {
      Thread oldest = ending[head];
      if (oldest.isAlive()) {
        return oldest;
      }
      take();
    }
    return null;
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
