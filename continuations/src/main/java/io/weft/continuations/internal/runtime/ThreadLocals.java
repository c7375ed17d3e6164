package io.weft.continuations.internal.runtime;

/**
 * Where the rewrite redirects {@code ThreadLocal.get}, {@code set} and {@code remove} (and so
 * {@code InheritableThreadLocal}'s and {@code ThreadLocal.withInitial}'s) in the classes it
 * rewrites. Outside a continuation session each is the plain call. Inside one, the thread-local is
 * remembered by the session ({@link ThreadLocalSwap}): its value is taken off the carrier thread
 * when the session suspends and put back on whichever thread resumes it, so the session finds
 * after a wait what it set before, as on a thread of its own. An {@code InheritableThreadLocal}
 * starts, in each session, with the value the thread that started the run had.
 *
 * <p>The value lives on the carrier thread while the session runs, so code that was not rewritten
 * sees it too during the same stretch (between two waits).
 */
public final class ThreadLocals {
  private ThreadLocals() {}

  public static Object get(ThreadLocal<?> local) {
    Fiber fiber = Sessions.current();
    if (fiber == null) {
      return local.get();
    }
    ThreadLocalSwap swap = fiber.threadLocals();
    int i = swap.enter(local);
    Object value = local.get();
    swap.present(i, true);
    return value;
  }

  public static <T> void set(ThreadLocal<T> local, T value) {
    Fiber fiber = Sessions.current();
    if (fiber == null) {
      local.set(value);
      return;
    }
    ThreadLocalSwap swap = fiber.threadLocals();
    int i = swap.enter(local);
    local.set(value);
    swap.present(i, true);
  }

  public static void remove(ThreadLocal<?> local) {
    Fiber fiber = Sessions.current();
    if (fiber == null) {
      local.remove();
      return;
    }
    ThreadLocalSwap swap = fiber.threadLocals();
    int i = swap.enter(local);
    local.remove();
    swap.present(i, false);
  }
}
