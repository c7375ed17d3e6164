package io.weft.continuations;

import java.util.Set;

/**
 * A context that code which is not rewritten keeps in a thread-local (a library's tracing or
 * logging context, say), carried across a continuation session's waits: taken off the thread the
 * session leaves when it suspends, and put back on the thread that resumes it. Without this, in
 * {@code CONTINUATIONS} mode such code finds after a wait whatever the last session on that thread
 * left there. Register it with {@link SessionRunner.Builder#carry}; the other modes run each
 * session on a thread of its own and ignore it. slf4j's MDC is carried this way without being
 * registered.
 *
 * <p>Thread-locals used by rewritten code need none of this: the rewrite gives each session its
 * own. The analysis refuses a task whose session reaches a thread-local in code that is not
 * rewritten, unless a registered context names that code's class in {@link #carries()}.
 *
 * <p>An OpenTelemetry {@code Context}, for instance, lives in a thread-local of
 * {@code ThreadLocalContextStorage}: {@code takeOff} returns {@code Context.current()} (null if it
 * is {@code Context.root()}) after attaching the root, and {@code putBack} attaches the context it
 * is given; docs/continuations.md has the whole recipe.
 *
 * <p>{@link #takeOff()} and {@link #putBack} run on the session's own thread of the moment, at
 * each suspend and resume: keep them cheap, and cheaper still when there is nothing to carry.
 *
 * @param <T> what is carried
 */
public interface ThreadContext<T> {
  /**
   * The classes whose thread-local state this carries, by binary name ({@code
   * io.opentelemetry.context.ThreadLocalContextStorage}), or whole packages, as a name ending with
   * {@code '.'}: their thread-local uses are not refused at load time.
   *
   * @return class names and package prefixes
   */
  Set<String> carries();

  /**
   * At a suspend: this thread's context, now cleared from it.
   *
   * @return the context to put back at the resume; null if there is none
   */
  T takeOff();

  /**
   * At the resume, and only if {@link #takeOff()} returned a context: puts it on this thread.
   *
   * @param context what {@link #takeOff()} returned
   */
  void putBack(T context);
}
