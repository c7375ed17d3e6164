package io.weft.continuations;

/**
 * A session tried to suspend through a stack frame that was not rewritten for continuations: a
 * JDK method (a {@code BufferedReader} over the transport, a stream, a lambda through
 * {@code java.util.function}, reflection), or a class outside the instrumented packages. The
 * session fails at once with this error as its outcome, instead of carrying on with wrong values
 * or hanging.
 *
 * <p>It is an {@link Error} on purpose: client code that catches {@code Exception} around a
 * transport call must not swallow it and suspend again.
 */
public final class NotInstrumentedError extends Error {
  private static final long serialVersionUID = 1L;

  /** The class of the frame that was not rewritten, or null. */
  private final String className;
  /** The method of the frame that was not rewritten, or null. */
  private final String methodName;

  /**
   * Creates the error.
   *
   * @param className the class whose method was not rewritten
   * @param methodName the method that was called without being rewritten
   * @param message what happened and how to fix it
   */
  public NotInstrumentedError(String className, String methodName, String message) {
    super(message);
    this.className = className;
    this.methodName = methodName;
  }

  /**
   * The class of the frame that was not rewritten, or null when it could not be named.
   *
   * @return the binary name of the class that was not rewritten, or null
   */
  public String className() {
    return className;
  }

  /**
   * The method of the frame that was not rewritten, or null when it could not be named.
   *
   * @return the name of the method that was not rewritten, or null
   */
  public String methodName() {
    return methodName;
  }
}
