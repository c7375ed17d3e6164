package io.weft.simulation;

import java.security.MessageDigest;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Takes the SHA-256 of a run's log on a thread of its own, buffer by buffer, in the order the
 * buffers were filled: the simulation's one thread only fills them. A long run hashes hundreds of
 * megabytes (32 bytes an event), a few per cent of that thread's time, which a second core does
 * alongside; the digest is the one the simulation's thread would have taken.
 *
 * <p>The simulation's thread never waits inside {@link #hand}, and seldom wakes the hashing thread
 * (a wake-up is a system call, and on a busy machine it can cost the waker its core): the hashing
 * thread looks for full buffers every {@value #LOOK_MILLIS} ms and hashes all it finds; only a
 * backlog of {@value #WAKE_AT} buffers wakes it at once. A buffer is recycled once hashed, or a
 * new one made. So that a hashing thread kept off its core cannot make the log's buffers grow
 * without bound, the simulation waits in {@link #keepUp}, which {@link World} calls between
 * events, never inside a session's slice (where the {@link BlockWatch} would take a wait for a
 * blocked session).
 */
final class LogHasher {
  /** Filled buffers not yet hashed past which {@link #keepUp} waits: 4 MiB of 64 KiB buffers. */
  static final int MAX_BEHIND = 64;
  /** Filled buffers not yet hashed at which {@link #hand} wakes the hashing thread. */
  static final int WAKE_AT = 16;
  /** How often an idle hashing thread looks for full buffers. */
  static final long LOOK_MILLIS = 2;

  private final MessageDigest sha;
  private final int bufferSize;
  private final ConcurrentLinkedQueue<byte[]> full = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<byte[]> free = new ConcurrentLinkedQueue<>();
  /** Buffers handed over, counted on the simulation's thread only. */
  private long handed;
  private final AtomicLong hashed = new AtomicLong();
  private final Thread thread;
  private final Thread owner = Thread.currentThread();
  private volatile boolean ownerWaits;
  /** Set once every buffer is handed over: the thread ends when it has hashed them. */
  private volatile boolean ended;
  private volatile boolean abandoned;
  private volatile Throwable failure;
  private boolean joined;

  /** Starts hashing into {@code sha}, which nothing else may use until {@link #finish}. */
  LogHasher(MessageDigest sha, int bufferSize) {
    this.sha = sha;
    this.bufferSize = bufferSize;
    // No inheritable thread-locals: the thread may be made inside a session's slice, where the
    // session's own values are swapped in.
    this.thread = new Thread(null, this::hashAll, "weft-simulation-log-hash", 0, false);
    thread.setDaemon(true);
    thread.start();
  }

  private void hashAll() {
    try {
      while (!abandoned) {
        byte[] b = full.poll();
        if (b == null) {
          if (ended && full.isEmpty()) {
            return;
          }
          LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(LOOK_MILLIS));
          continue;
        }
        sha.update(b, 0, b.length);
        free.add(b);
        hashed.incrementAndGet();
        if (ownerWaits) {
          LockSupport.unpark(owner);
        }
      }
    } catch (Throwable e) {
      failure = e;
      LockSupport.unpark(owner);
    }
  }

  /** Hands over a full buffer; returns an empty one for the next records. Never waits. */
  byte[] hand(byte[] buffer) {
    handed++;
    full.add(buffer);
    if (handed - hashed.get() >= WAKE_AT) {
      LockSupport.unpark(thread);
    }
    byte[] next = free.poll();
    return next != null ? next : new byte[bufferSize];
  }

  /** True when the hashing thread is more than {@link #MAX_BEHIND} buffers behind. */
  boolean behind() {
    return handed - hashed.get() > MAX_BEHIND;
  }

  /**
   * Waits until the hashing thread is at most half {@link #MAX_BEHIND} behind; for the simulation's
   * thread between events. An interrupt ends no wait here and is left set for whoever asks (it is
   * taken for the wait, which would otherwise not park, and set again after).
   */
  void keepUp() {
    boolean interrupted = Thread.interrupted();
    ownerWaits = true;
    try {
      while (handed - hashed.get() > MAX_BEHIND / 2 && failure == null && thread.isAlive()) {
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(10));
      }
    } finally {
      ownerWaits = false;
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    rethrow();
  }

  /**
   * Waits until every buffer handed over is hashed and the thread has ended; {@code sha} is the
   * caller's again. An interrupt is restored, not taken.
   */
  void finish() {
    if (!joined) {
      ended = true;
      LockSupport.unpark(thread);
      join();
    }
    rethrow();
  }

  /** Ends the thread without hashing what is left (a run that failed): no digest follows. */
  void abandon() {
    if (!joined) {
      abandoned = true;
      LockSupport.unpark(thread);
      join();
    }
  }

  /** True while the hashing thread runs. */
  boolean running() {
    return thread.isAlive();
  }

  private void join() {
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    joined = true;
    // The result keeps the log, and the log this hasher: let the buffers go.
    full.clear();
    free.clear();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void rethrow() {
    Throwable e = failure;
    if (e instanceof Error) {
      throw (Error) e;
    }
    if (e != null) {
      throw new IllegalStateException("hashing the simulation's log failed", e);
    }
  }
}
