package io.weft.continuations.internal.runtime;

import org.apache.commons.javaflow.core.StackRecorder;

/** What the session-aware utilities need of the runtime: which continuation session is running here. */
public final class Sessions {
  private Sessions() {}

  /** The fiber whose continuation runs on this thread, or null outside continuation sessions. */
  public static Fiber current() {
    StackRecorder recorder = StackRecorder.get();
    if (recorder == null) {
      return null;
    }
    Object context = recorder.getContext();
    return context instanceof Fiber ? (Fiber) context : null;
  }

  /** The current fiber, or the current thread: who owns a session lock. */
  public static Object owner() {
    Fiber fiber = current();
    return fiber != null ? fiber : Thread.currentThread();
  }
}
