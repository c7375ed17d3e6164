package io.weft.continuations.testclient.shapes;

/**
 * A per-request context kept in a thread-local made with {@code withInitial}, in a class of its own
 * that never suspends: its calls are rewritten all the same.
 */
final class RequestContext {
  private static final ThreadLocal<String> CURRENT = ThreadLocal.withInitial(() -> "none");

  private RequestContext() {}

  static void enter(String request) {
    CURRENT.set(request);
  }

  static String current() {
    return CURRENT.get();
  }

  static void leave() {
    CURRENT.remove();
  }
}
