package io.weft.continuations.internal.runtime;

import java.util.Map;
import org.slf4j.MDC;
import org.slf4j.helpers.NOPMDCAdapter;

/**
 * slf4j's MDC is a thread-local: a session's context is taken off the worker when the session
 * suspends and put back where it resumes. With slf4j's no-op adapter (or none) this does nothing,
 * and with a real one a session that set nothing costs one thread-local read per suspend.
 */
final class Mdc {
  private static final boolean ACTIVE = !(MDC.getMDCAdapter() instanceof NOPMDCAdapter) && MDC.getMDCAdapter() != null;

  private Mdc() {}

  /** The thread's context, now cleared from it, or null when it has none. */
  static Map<String, String> takeOff() {
    if (!ACTIVE) {
      return null;
    }
    Map<String, String> context = MDC.getCopyOfContextMap();
    if (context == null || context.isEmpty()) {
      return null;
    }
    MDC.clear();
    return context;
  }

  static void putBack(Map<String, String> context) {
    MDC.setContextMap(context);
  }

  /** At a session's end: leave nothing of it on the worker. */
  static void clear() {
    if (ACTIVE) {
      Map<String, String> context = MDC.getCopyOfContextMap();
      if (context != null && !context.isEmpty()) {
        MDC.clear();
      }
    }
  }
}
