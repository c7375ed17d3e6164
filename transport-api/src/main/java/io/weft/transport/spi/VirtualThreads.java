package io.weft.transport.spi;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Starts virtual threads on JDK 21+ through method handles found once, so that code compiled for
 * release 17 (the runner, the benchmarks) uses them when it runs on 21+; on older JDKs it says
 * plainly that they need 21. The one such helper in Weft.
 */
public final class VirtualThreads {
  private static final MethodHandle OF_VIRTUAL;
  private static final MethodHandle NAME;
  private static final MethodHandle START;
  /** {@code Thread.isVirtual()}, as {@code (Thread) -> boolean}; null before JDK 21. */
  private static final MethodHandle IS_VIRTUAL;

  static {
    MethodHandle ofVirtual = null;
    MethodHandle name = null;
    MethodHandle start = null;
    MethodHandle isVirtual = null;
    try {
      Class<?> builder = Class.forName("java.lang.Thread$Builder");
      Class<?> ofVirtualType = Class.forName("java.lang.Thread$Builder$OfVirtual");
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      ofVirtual = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtualType));
      name = lookup.findVirtual(ofVirtualType, "name", MethodType.methodType(ofVirtualType, String.class));
      start = lookup.findVirtual(builder, "start", MethodType.methodType(Thread.class, Runnable.class));
      isVirtual = lookup.findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
    } catch (ReflectiveOperationException | LinkageError e) {
      ofVirtual = null;
      isVirtual = null;
    }
    OF_VIRTUAL = ofVirtual;
    NAME = name;
    START = start;
    IS_VIRTUAL = isVirtual;
    // Linked now, with room: the first look may come with the heap full.
    isVirtual(Thread.currentThread());
  }

  private VirtualThreads() {}

  /**
   * Whether this JVM has virtual threads (JDK 21 or later), found once by reflection since Weft
   * compiles for JDK 17.
   *
   * @return true when they can be started
   */
  public static boolean available() {
    return OF_VIRTUAL != null;
  }

  /**
   * Why virtual threads cannot be used here, for a message that skips or refuses a mode.
   *
   * @return {@code "virtual threads need JDK 21+, this is JDK <version>"}, or null when they can
   */
  public static String unavailableReason() {
    return available() ? null : "virtual threads need JDK 21+, this is JDK " + Runtime.version();
  }

  /**
   * Whether {@code thread} is a virtual thread: false on JDKs before 21. Allocates nothing once
   * this class has loaded.
   *
   * @param thread any thread
   * @return {@code thread.isVirtual()} on JDK 21+, else false
   */
  public static boolean isVirtual(Thread thread) {
    if (IS_VIRTUAL == null) {
      return false;
    }
    try {
      return (boolean) IS_VIRTUAL.invokeExact(thread);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      // Thread.isVirtual() declares nothing.
      throw new IllegalStateException(t);
    }
  }

  /** Whether {@link #warmUp()} has run a virtual thread through its life in this JVM. */
  private static volatile boolean warmedUp;

  /**
   * Once per JVM, runs one virtual thread through its whole life (start, a timed park, a yield,
   * its end) and waits for it, so that the JDK's code on those paths is loaded, linked and
   * initialised now, with room. The JDK links some of it lazily, on the carrier: the first virtual
   * thread to end, for one, initialises {@code jdk.internal.event.VirtualThreadEndEvent} in
   * {@code VirtualThread.run}'s last steps, and where that first end comes in a full heap (a
   * VIRTUAL_THREADS run whose sessions all end only once the heap has run out) the
   * {@code OutOfMemoryError} of that initialisation leaves the virtual thread's frame and ends its
   * carrier (seen with {@code -Xlog:exceptions} in session 17: then every carrier died within a
   * second, each in turn failing to make a replacement). First it loads the class of a catch
   * clause that a carrier's submit reaches only when it fails (see {@link #loadCarrierCatchTypes}).
   * For a runner, before its first virtual session thread. Waits at most a second for it; if the
   * thread cannot be made or has not ended by then, returns all the same and the next call tries
   * again.
   *
   * @throws InterruptedException if interrupted while waiting for the thread's end
   * @throws UnsupportedOperationException if this JDK has no virtual threads
   */
  public static void warmUp() throws InterruptedException {
    check();
    if (warmedUp) {
      return;
    }
    boolean loaded = loadCarrierCatchTypes();
    Thread thread;
    try {
      thread = start("weft-virtual-warm-up", () -> {
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        Thread.yield();
      });
    } catch (RuntimeException | Error e) {
      // No room, or no thread: the run goes on without the warm-up, and the next run tries again.
      return;
    }
    // Bounded: a warm-up that cannot run (every carrier busy with the user's own pinned virtual
    // threads, or its carrier dead of a heap already full) must not hold the run's start. It ends
    // in about a millisecond when it can; the next run tries again if it did not.
    thread.join(WARM_UP_WAIT_MILLIS);
    if (!thread.isAlive() && loaded) {
      warmedUp = true;
    }
  }

  /**
   * Loads the one class that a carrier's own steps name in a {@code catch} and that a JVM running
   * virtual threads need not have loaded: {@code java.util.concurrent.RejectedExecutionException},
   * the first catch clause of {@code VirtualThread.submitRunContinuation} (and of its external and
   * lazy variants), whose {@code catch (OutOfMemoryError)} after it retries, on JDK 25, a submit
   * that found no room (JDK 21's submit catches only {@code RejectedExecutionException}: there a
   * failed submit's error leaves the unpark whether or not the class is loaded, so on JDK 21 this
   * load removes nothing, and a session thread's end that unparks another from a carrier in a full
   * heap can still end the carrier). The JVM resolves a catch clause's class only when an exception first reaches that
   * handler table; loading it then allocates (its mirror), and in a full heap that allocation
   * fails: the new {@code OutOfMemoryError} replaces the one being handled and the JVM goes on
   * looking for a handler from the failed clause's own start, outside the try, so the error
   * escapes the retry loop. Seen with {@code -Xlog:exceptions} in session 18 (JDK 25.0.3, a
   * VIRTUAL_THREADS child of {@code RunOutOfHeapTest}): a session thread's end ({@code
   * VirtualThread.afterDone}, on the carrier) counted down the latch that the next session's
   * thread waited on (ThreadRunner's join of the thread before it), the unpark's submit met the
   * full heap, the catch clause's class could not be loaded, and the error left
   * {@code runContinuation} and ended the carrier; the other carrier died failing to replace it,
   * and the run's sessions never ended. Once loaded (here, with room), resolving the clause
   * allocates nothing, and on JDK 25 a submit that finds no room retries until it finds some (park
   * 100 ms, try again): an interrupt or unpark of a virtual thread may then wait for the heap, so
   * none is made holding what the session threads need to end (ThreadRunner's cancel). Best effort: with no room even now, the run goes on without it.
   *
   * @return false if it could not be loaded now (the next warm-up tries again)
   */
  private static boolean loadCarrierCatchTypes() {
    try {
      Class.forName("java.util.concurrent.RejectedExecutionException");
      return true;
    } catch (ClassNotFoundException e) {
      // Not in this JDK: nothing of it to resolve either.
      return true;
    } catch (LinkageError | OutOfMemoryError e) {
      // No room for it now: the run goes on, and the next warm-up tries again.
      return false;
    }
  }

  /** How long a run's start waits for {@link #warmUp()}'s thread to end. */
  private static final long WARM_UP_WAIT_MILLIS = 1_000L;

  /**
   * Whether {@link #warmUp()} has run in this JVM.
   *
   * @return true once a warm-up thread has ended
   */
  public static boolean warmedUp() {
    return warmedUp;
  }

  /** Set on the session threads of a VIRTUAL_THREADS run ({@link #markSessionThread()}). */
  private static final ThreadLocal<Boolean> SESSION_THREAD = new ThreadLocal<>();

  /**
   * Marks the current thread, a virtual thread that a VIRTUAL_THREADS run started for a session,
   * as one whose socket reads wait in one untimed park rather than in timed slices: its runner's
   * cancel interrupts it, which ends such a read even where a close could not (see
   * {@code SocketTransport}). Called as the thread starts, with room for its thread-local map.
   */
  public static void markSessionThread() {
    SESSION_THREAD.set(Boolean.TRUE);
  }

  /**
   * Whether the current thread was marked by {@link #markSessionThread()}. On a thread that is
   * not virtual, false without looking further; allocates nothing on a marked thread.
   *
   * @return true on a marked virtual session thread
   */
  public static boolean onSessionThread() {
    Thread self = Thread.currentThread();
    if (!isVirtual(self)) {
      return false;
    }
    try {
      return SESSION_THREAD.get() == Boolean.TRUE;
    } catch (OutOfMemoryError e) {
      // An unmarked virtual thread's first look makes its thread-local map or entry; with no room
      // for it, the thread is not a marked session thread (a marked one allocates nothing here),
      // and its read keeps its slices.
      return false;
    }
  }

  /** Throws {@link UnsupportedOperationException} unless this JDK has virtual threads. */
  public static void check() {
    if (!available()) {
      throw new UnsupportedOperationException("VIRTUAL_THREADS mode needs JDK 21 or later; this is JDK "
          + Runtime.version().feature() + ". Use THREADS or CONTINUATIONS mode here.");
    }
  }

  /**
   * Starts {@code task} on a new, unnamed virtual thread.
   *
   * @param task what the thread runs
   * @return the started thread
   * @throws UnsupportedOperationException if this JDK has no virtual threads (see {@link #check()})
   * @throws IllegalStateException if the JDK refused to start one
   */
  public static Thread start(Runnable task) {
    check();
    try {
      return (Thread) START.invoke(OF_VIRTUAL.invoke(), task);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("cannot start a virtual thread: " + t, t);
    }
  }

  /**
   * Starts {@code task} on a new virtual thread named {@code name}.
   *
   * @param name the thread's name, as thread dumps and leak checks show it
   * @param task what the thread runs
   * @return the started thread
   * @throws UnsupportedOperationException if this JDK has no virtual threads (see {@link #check()})
   * @throws IllegalStateException if the JDK refused to start one
   */
  public static Thread start(String name, Runnable task) {
    check();
    try {
      Object builder = OF_VIRTUAL.invoke();
      builder = NAME.invoke(builder, name);
      return (Thread) START.invoke(builder, task);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("cannot start a virtual thread: " + t, t);
    }
  }
}
