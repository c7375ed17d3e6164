package io.weft.continuations.testoutside;

/**
 * A library that keeps a context in its own thread-local, in a package the tests do not rewrite:
 * its calls cannot be redirected, so a session's context must be carried across waits.
 */
public final class Library {
  private static final ThreadLocal<String> CONTEXT = new ThreadLocal<>();

  private Library() {}

  public static void begin(String context) {
    CONTEXT.set(context);
  }

  public static String current() {
    return CONTEXT.get();
  }

  public static void end() {
    CONTEXT.remove();
  }
}
