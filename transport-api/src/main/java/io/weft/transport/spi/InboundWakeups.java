package io.weft.transport.spi;

import io.weft.transport.TransportClosedException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The waiting half of {@link InboundState}: the lock it shares with its subclasses, whether input
 * has arrived since the last poll that answered "need more", whether the connection has ended or
 * been closed (and why), and the one-shot wake-ups of a reader that waits for input and of a wait
 * that must end with the connection. {@link InboundState} decides when these change, under the
 * lock; the rules of each method are its own. Not for use on its own: its one subclass is
 * {@link InboundState}.
 */
abstract class InboundWakeups {
  private static final Logger LOG = LoggerFactory.getLogger(InboundWakeups.class);
  private static final VarHandle READER_WAITING;

  static {
    try {
      READER_WAITING = MethodHandles.lookup().findVarHandle(InboundWakeups.class, "readerWaiting", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * Guards the buffer and every field marked so; subclasses take it for their TLS steps. Confined
   * to the loop thread that delivers the input once a reader polls there (see
   * {@link InboundState#inputDeliveredOnCurrentThread}): there it takes no lock.
   */
  protected final LoopConfinedLock lock = new LoopConfinedLock();

  // Guarded by lock; volatile only so that inputArrived() can look without it.
  volatile boolean arrived;
  /** True once the connection has closed, whoever closed it; or once it has failed. */
  volatile boolean ended;
  /** Set once, under lock, by the first close; read without it. */
  volatile String closedBecause;
  /** True while a reader waits for input in any way: spinning, blocked or suspended. */
  private volatile boolean readerWaiting;
  // Guarded by lock.
  private Runnable wakeup;
  private Runnable endWakeup;

  InboundWakeups() {}

  /** Under the lock: true once input has ended (a failure, or end of stream), buffered or not. */
  abstract boolean inputEnded();

  /**
   * Under the lock: throws if this state is closed.
   *
   * @throws TransportClosedException if it is
   */
  protected final void checkOpen() throws TransportClosedException {
    String because = closedBecause;
    if (because != null) {
      throw new TransportClosedException("transport is closed: " + because);
    }
  }

  /**
   * Marks the start and the end of a reader's wait (blocked, spinning or suspended). Only
   * {@link #isReaderWaiting} reads it. Called by the reading thread.
   *
   * @param waiting true as the wait starts, false once it has ended
   */
  public final void readerWaiting(boolean waiting) {
    // A release store, not a volatile one: nothing is ordered by this flag but what a poller of
    // isReaderWaiting sees, so the full fence a volatile store costs (two per read that waits)
    // buys nothing.
    READER_WAITING.setRelease(this, waiting);
  }

  /**
   * True while a reader waits for input: blocked, spinning or suspended. For tests that must
   * act only once a read is pending, and for diagnostics.
   *
   * @return the flag last set by {@link #readerWaiting}
   */
  public final boolean isReaderWaiting() {
    return readerWaiting;
  }

  /**
   * Registers {@code wakeup} to run once, when
   * input next arrives (see {@link InboundState}), and returns true; or returns false, without
   * registering anything, when input has already arrived and the caller should poll again now.
   *
   * <p>The wake-up runs on the thread that delivers the event (an I/O thread; for MINA's in-VM
   * pipe the peer's writing thread), or the thread that calls {@link InboundState#close}. It runs outside
   * this object's lock and must be quick and must not block: make a session ready, or resume it
   * right there on a loop thread. It runs at most once per registration.
   *
   * @param wakeup what to run when input arrives
   * @return true if registered; false if the caller should poll again now
   * @throws IllegalArgumentException if {@code wakeup} is null
   * @throws IllegalStateException if a wake-up is already registered
   */
  public final boolean wakeWhenReadable(Runnable wakeup) {
    if (wakeup == null) {
      throw new IllegalArgumentException("wakeup == null");
    }
    lock.lock();
    try {
      if (arrived || closedBecause != null || inputEnded()) {
        return false;
      }
      if (this.wakeup != null) {
        throw new IllegalStateException("a read wake-up is already registered");
      }
      this.wakeup = wakeup;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * True when input has arrived (see {@link InboundState}) or this state is closed: a poll now
   * would not answer "need more" for the same reason as the last one. Takes no lock, never
   * waits; for a caller that spins briefly before it waits.
   *
   * @return true when a poll is worth trying again
   */
  public final boolean inputArrived() {
    return arrived || closedBecause != null;
  }

  /**
   * Forgets the wake-up registered with {@link #wakeWhenReadable}, if any: the wait it served
   * has ended another way (timed out), and its owner may register a new one. Never waits.
   */
  public final void cancelWakeup() {
    lock.lock();
    try {
      wakeup = null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether the connection has closed or failed, whoever ended it. Takes no lock; never waits.
   *
   * @return true once it has
   */
  public final boolean hasEnded() {
    return ended || closedBecause != null;
  }

  /**
   * Registers {@code wakeup} to run once when the connection closes or fails, whoever ends it,
   * and returns true; or returns false, registering nothing, if it has already ended. For a
   * wait on a library future (a write, a connect, a handshake), which the close itself does not
   * always complete. The same rules as {@link #wakeWhenReadable}: quick, never blocking, at most
   * once.
   *
   * @param wakeup what to run when the connection ends
   * @return true if registered; false if it has already ended
   * @throws IllegalArgumentException if {@code wakeup} is null
   * @throws IllegalStateException if one is already registered
   */
  public final boolean wakeWhenEnded(Runnable wakeup) {
    if (wakeup == null) {
      throw new IllegalArgumentException("wakeup == null");
    }
    lock.lock();
    try {
      if (ended || closedBecause != null) {
        return false;
      }
      if (endWakeup != null) {
        throw new IllegalStateException("an end wake-up is already registered");
      }
      endWakeup = wakeup;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Forgets the wake-up registered with {@link #wakeWhenEnded}, if any. Never waits. */
  public final void cancelEndWakeup() {
    lock.lock();
    try {
      endWakeup = null;
    } finally {
      lock.unlock();
    }
  }

  /** Under the lock: takes the end wake-up, to run after the lock is released. */
  final Runnable takeEndWakeup() {
    Runnable toRun = endWakeup;
    endWakeup = null;
    return toRun;
  }

  /** Under the lock: takes the reader's wake-up, to run after the lock is released. */
  final Runnable takeWakeup() {
    Runnable toRun = wakeup;
    wakeup = null;
    return toRun;
  }

  /**
   * Runs a wake-up taken from this state, if any; one that throws is logged, not passed on, so
   * that an I/O thread survives a broken wake-up.
   *
   * @param toRun the wake-up from {@link InboundState#onInput}, or null
   */
  protected static void runWakeup(Runnable toRun) {
    if (toRun == null) {
      return;
    }
    try {
      toRun.run();
    } catch (RuntimeException | Error e) {
      LOG.error("a wake-up failed; its session may never resume", e);
    }
  }

  /**
   * Whether {@link InboundState#close} has been called. Takes no lock.
   *
   * @return true once it has
   */
  public final boolean isClosed() {
    return closedBecause != null;
  }

  /**
   * Why this was closed. Takes no lock.
   *
   * @return the reason given to the first {@link InboundState#close}, or null while open
   */
  public final String closedBecause() {
    return closedBecause;
  }
}
