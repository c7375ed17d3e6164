package io.weft.continuations;

import java.util.List;

/**
 * What a {@link ContinuationClassLoader} worked out when it scanned its packages: which methods
 * can suspend (and so are rewritten), what can never work as a continuation (problems), and
 * what might fail at run time (warnings, e.g. reflection).
 *
 * @param suspendable the methods marked suspendable, as {@code pkg.Class.method(descriptor)}
 * @param problems code that would suspend through a frame that cannot be rewritten
 * @param warnings code the analysis cannot see through; checked at run time
 */
public record InstrumentationReport(List<String> suspendable, List<Problem> problems, List<String> warnings) {

  public InstrumentationReport {
    suspendable = List.copyOf(suspendable);
    problems = List.copyOf(problems);
    warnings = List.copyOf(warnings);
  }

  /**
   * One method that cannot work as part of a continuation.
   *
   * @param className the class, dotted ({@code com.example.Client})
   * @param methodName the method
   * @param descriptor its JVM descriptor
   * @param message what is wrong and what to do about it
   */
  public record Problem(String className, String methodName, String descriptor, String message) {
    @Override
    public String toString() {
      return className + "." + methodName + descriptor + ": " + message;
    }
  }
}
