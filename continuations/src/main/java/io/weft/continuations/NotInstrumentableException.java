package io.weft.continuations;

import java.util.List;

/**
 * The load-time refusal: a task cannot run as continuations because the class loader's analysis
 * found code on its reachable paths that would suspend through a frame that cannot be rewritten
 * (for example a suspending method reached through a lambda or a JDK interface such as
 * {@code InputStream.read}). Thrown by {@link SessionRunner#run} before any session starts.
 */
public final class NotInstrumentableException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final transient List<InstrumentationReport.Problem> problems;

  /**
   * Creates the refusal.
   *
   * @param message what cannot be made to suspend, with the call chain
   * @param problems the problems found, in the order the analysis met them
   */
  public NotInstrumentableException(String message, List<InstrumentationReport.Problem> problems) {
    super(message);
    this.problems = List.copyOf(problems);
  }

  /**
   * What was found, one entry per offending method.
   *
   * @return the problems, one per offending method
   */
  public List<InstrumentationReport.Problem> problems() {
    return problems;
  }
}
