package io.weft.continuations;

import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.internal.runtime.Sessions;
import java.io.IOException;
import org.apache.commons.javaflow.api.continuable;

/**
 * A reentrant mutual-exclusion lock owned by a session, for session code that must hold it across
 * transport calls. A {@code ReentrantLock} cannot do that in {@code CONTINUATIONS} mode (it
 * belongs to the worker thread: while one session is suspended inside it, every other session on
 * that worker is inside it too); a {@code synchronized} region that can suspend can, since the
 * rewrite gives it a lock like this one, but only in the classes it rewrites. This lock belongs
 * to the session: in a continuation session, waiting for it suspends the session; on an ordinary
 * thread (every other mode) it blocks the thread, and the thread is the owner.
 *
 * <pre>{@code
 * lock.lock();
 * try {
 *   transport.writeLine("INCR " + key);
 *   transport.readLine(64);
 * } finally {
 *   lock.unlock();
 * }
 * }</pre>
 *
 * <p>It holds no thread and needs no closing; a session that ends while holding it leaves it
 * held, as a thread that ends holding a {@code ReentrantLock} does: unlock in {@code finally}.
 */
public final class SessionLock {
  private final SessionSemaphore permit = new SessionSemaphore(1);

  /** An unlocked lock. */
  public SessionLock() {}
  private volatile Object owner;
  private int holds;

  /**
   * Takes the lock, suspending (or blocking) until it is free; again by its owner, counts.
   *
   * @throws SessionCancelledException if the session's run is cancelled while it waits
   */
  @continuable
  public void lock() throws IOException {
    Object me = Sessions.owner();
    if (owner == me) {
      holds++;
      return;
    }
    permit.acquire();
    owner = me;
    holds = 1;
  }

  /**
   * Takes the lock if it is free now, or held by the caller's session already.
   *
   * @return true if the lock was free and is now held by the current session
   */
  public boolean tryLock() {
    Object me = Sessions.owner();
    if (owner == me) {
      holds++;
      return true;
    }
    if (permit.tryAcquire()) {
      owner = me;
      holds = 1;
      return true;
    }
    return false;
  }

  /**
   * Releases one hold; the last wakes the longest waiter.
   *
   * @throws IllegalMonitorStateException if the caller's session does not hold it
   */
  public void unlock() {
    if (owner != Sessions.owner()) {
      throw new IllegalMonitorStateException("SessionLock not held by this session");
    }
    if (--holds == 0) {
      owner = null;
      permit.release();
    }
  }

  /**
   * True when the caller's session holds it.
   *
   * @return true if the current session holds the lock
   */
  public boolean isHeldBySession() {
    return owner == Sessions.owner();
  }

  @Override
  public String toString() {
    Object o = owner;
    return "SessionLock[" + (o == null ? "free" : "held") + "]";
  }
}
