package io.weft.continuations.internal.runtime;

import io.weft.continuations.SessionLock;
import java.io.IOException;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;
import org.apache.commons.javaflow.api.continuable;

/**
 * The session monitors the rewrite puts where a {@code synchronized} region can suspend: for each
 * object used so, a {@link SessionLock} that the session holds (the thread, in every mode but
 * continuations), reentrantly, across its waits. A session that finds it held suspends until it
 * is free, instead of blocking its worker thread. The rewritten code takes the object's plain
 * monitor first, then this one, and releases this one after the plain one.
 *
 * <p>The locks are kept by the object's identity (never its {@code equals}), weakly: an object no
 * one holds any more takes its lock with it. Looking one up takes a global lock for a few
 * instructions; the table is cleared of dead entries as it grows.
 */
public final class SessionMonitors {
  private static final Map<Key, SessionLock> LOCKS = new HashMap<>();
  private static final ReferenceQueue<Object> DEAD = new ReferenceQueue<>();

  private SessionMonitors() {}

  /**
   * Takes {@code monitor}'s session monitor, suspending (or, outside a continuation session,
   * blocking) while another session holds it.
   */
  @continuable
  public static void enter(Object monitor) {
    SessionLock lock = lockOf(monitor);
    try {
      lock.lock();
    } catch (IOException e) {
      // The run was cancelled while this session waited: the session ends with it, as from any wait.
      throw Sneaky.<RuntimeException>rethrow(e);
    }
  }

  /**
   * Releases one hold of {@code monitor}'s session monitor.
   *
   * @throws IllegalMonitorStateException if the caller's session does not hold it
   */
  public static void exit(Object monitor) {
    SessionLock lock;
    synchronized (LOCKS) {
      lock = LOCKS.get(new Key(monitor, null));
    }
    if (lock == null) {
      throw new IllegalMonitorStateException("no session holds the monitor of a " + monitor.getClass().getName());
    }
    lock.unlock();
  }

  private static SessionLock lockOf(Object monitor) {
    synchronized (LOCKS) {
      SessionLock lock = LOCKS.get(new Key(monitor, null));
      if (lock == null) {
        for (Object dead; (dead = DEAD.poll()) != null; ) {
          LOCKS.remove(dead);
        }
        lock = new SessionLock();
        LOCKS.put(new Key(monitor, DEAD), lock);
      }
      return lock;
    }
  }

  /** An object by identity, weakly held; equal to another key of the same living object. */
  private static final class Key extends WeakReference<Object> {
    private final int hash;

    Key(Object referent, ReferenceQueue<Object> queue) {
      super(referent, queue);
      this.hash = System.identityHashCode(referent);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      if (o == this) {
        return true;
      }
      if (!(o instanceof Key)) {
        return false;
      }
      Object mine = get();
      return mine != null && mine == ((Key) o).get();
    }
  }

  private static final class Sneaky {
    @SuppressWarnings("unchecked")
    static <T extends Throwable> T rethrow(Throwable t) throws T {
      throw (T) t;
    }
  }
}
