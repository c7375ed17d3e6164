package io.weft.continuations.internal.runtime;

import java.util.Arrays;

/**
 * The thread-locals one session used through rewritten code, and their values while it is
 * suspended. Made on the session's first such use, so a session that uses none costs one null
 * check per suspend and per resume. Only the session's own thread of the moment touches it.
 *
 * <p>For each thread-local: {@code present} says whether the session's value exists (set, or
 * made by {@code get}) or was removed; at a suspend the value is read off the carrier and the
 * carrier's is removed, at the resume it is set on the new carrier (or removed there).
 */
final class ThreadLocalSwap {
  private final InheritedValues inherited;
  private ThreadLocal<?>[] locals = new ThreadLocal<?>[2];
  private Object[] values = new Object[2];
  private boolean[] present = new boolean[2];
  private int size;

  ThreadLocalSwap(InheritedValues inherited) {
    this.inherited = inherited;
  }

  /**
   * The index of {@code local}, added on its first use by the session; an inheritable one is
   * then set to the value the run's starting thread had.
   */
  int enter(ThreadLocal<?> local) {
    for (int i = 0; i < size; i++) {
      if (locals[i] == local) {
        return i;
      }
    }
    if (size == locals.length) {
      locals = Arrays.copyOf(locals, size * 2);
      values = Arrays.copyOf(values, size * 2);
      present = Arrays.copyOf(present, size * 2);
    }
    locals[size] = local;
    if (local instanceof InheritableThreadLocal && inherited != null) {
      @SuppressWarnings("unchecked")
      ThreadLocal<Object> l = (ThreadLocal<Object>) local;
      l.set(inherited.valueOf((InheritableThreadLocal<?>) local));
      present[size] = true;
    }
    return size++;
  }

  void present(int i, boolean exists) {
    present[i] = exists;
  }

  /** At a suspend: the session's values off the carrier thread. */
  void takeOff() {
    for (int i = 0; i < size; i++) {
      if (present[i]) {
        values[i] = locals[i].get();
      }
      locals[i].remove();
    }
  }

  /** At the resume: the session's values on the thread that resumes it. */
  @SuppressWarnings("unchecked")
  void putBack() {
    for (int i = 0; i < size; i++) {
      if (present[i]) {
        ((ThreadLocal<Object>) locals[i]).set(values[i]);
        values[i] = null;
      } else {
        locals[i].remove();
      }
    }
  }

  /** At the session's end: nothing of it stays on the thread it ended on. */
  void clear() {
    for (int i = 0; i < size; i++) {
      locals[i].remove();
    }
  }
}
