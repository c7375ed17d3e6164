package io.weft.continuations.internal.runtime;

import io.weft.continuations.ThreadContext;
import java.util.List;

/** The {@link ThreadContext}s a run carries across its sessions' waits; none by default. */
public final class CarriedContexts {
  static final CarriedContexts NONE = new CarriedContexts(List.of());

  private final ThreadContext<?>[] contexts;

  public CarriedContexts(List<ThreadContext<?>> contexts) {
    this.contexts = contexts.toArray(new ThreadContext<?>[0]);
  }

  boolean isEmpty() {
    return contexts.length == 0;
  }

  /** At a suspend: each context off this thread; null when none had anything. */
  Object[] takeOff() {
    Object[] taken = null;
    for (int i = 0; i < contexts.length; i++) {
      Object c = contexts[i].takeOff();
      if (c != null) {
        if (taken == null) {
          taken = new Object[contexts.length];
        }
        taken[i] = c;
      }
    }
    return taken;
  }

  /** At the resume: what {@link #takeOff()} took, on this thread. */
  @SuppressWarnings("unchecked")
  void putBack(Object[] taken) {
    for (int i = 0; i < contexts.length; i++) {
      if (taken[i] != null) {
        ((ThreadContext<Object>) contexts[i]).putBack(taken[i]);
      }
    }
  }
}
