package io.weft.transport;

/**
 * One client session, as Weft's runner runs it in every mode: given an open transport, talk to
 * the peer and return a result. This is what a protocol author writes (or what a load driver
 * wraps around a protocol client): plain blocking-style Java, no annotations.
 *
 * <p>The runner creates one instance per run and calls {@link #run} once per session, possibly
 * for many sessions at once; keep per-session state in locals, not fields. The runner opens the
 * transport before the call and closes it afterwards.
 *
 * <p>In continuation mode the runner loads the implementing class through Weft's instrumenting
 * class loader, so it must be a named class with a public constructor (not a lambda), and the
 * result should be of a JDK type: classes from the instrumented packages exist there as a
 * second copy.
 *
 * @param <T> what a session produces, for the caller to check
 */
public interface SessionTask<T> {

  /**
   * Runs session number {@code index} (0-based) over {@code transport}. An exception ends this
   * session only; it is reported as the session's outcome.
   *
   * @param transport the session's connected transport, owned by the runner
   * @param index the session's number, from 0
   * @return the session's result, which the run's outcome carries
   * @throws Exception anything; it becomes the session's failure
   */
  T run(Transport transport, int index) throws Exception;
}
