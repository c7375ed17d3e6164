package io.weft.continuations;

import io.weft.continuations.internal.runtime.Fiber;
import io.weft.continuations.internal.runtime.Sessions;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A value per session, like a {@link ThreadLocal}, that follows its session across suspends
 * and threads in every mode: in a {@code CONTINUATIONS} session it is kept with the session's
 * continuation (a thread-local there would hold whatever the last session on that worker set);
 * on an ordinary thread ({@code SYNC}, {@code THREADS}, {@code VIRTUAL_THREADS}, plain code) it
 * is a thread-local underneath.
 *
 * <pre>{@code
 * private static final SessionLocal<Deque<String>> SENT = SessionLocal.withInitial(ArrayDeque::new);
 * ...
 * SENT.get().add(command);            // survives the read below, whatever thread resumes it
 * String reply = transport.readLine(512);
 * }</pre>
 *
 * <p>Lifecycle: a session's values are dropped when the session ends. On an ordinary thread
 * they live as long as the thread, as a thread-local's do: call {@link #remove()} at the end of
 * a task that runs on pooled threads.
 */
public final class SessionLocal<T> {
  private final Supplier<? extends T> initial;
  private final ThreadLocal<T> onThreads;

  private SessionLocal(Supplier<? extends T> initial) {
    this.initial = initial;
    this.onThreads = ThreadLocal.withInitial(initial);
  }

  /** A session-local whose value starts as null. */
  public static <T> SessionLocal<T> create() {
    return new SessionLocal<>(() -> null);
  }

  /** A session-local whose value starts as {@code initial.get()}, asked once per session. */
  public static <T> SessionLocal<T> withInitial(Supplier<? extends T> initial) {
    return new SessionLocal<>(Objects.requireNonNull(initial, "initial"));
  }

  /** This session's value. */
  @SuppressWarnings("unchecked")
  public T get() {
    Fiber fiber = Sessions.current();
    if (fiber == null) {
      return onThreads.get();
    }
    java.util.Map<Object, Object> locals = fiber.locals();
    if (locals.containsKey(this)) {
      return (T) locals.get(this);
    }
    T value = initial.get();
    locals.put(this, value);
    return value;
  }

  /** Sets this session's value. */
  public void set(T value) {
    Fiber fiber = Sessions.current();
    if (fiber == null) {
      onThreads.set(value);
    } else {
      fiber.locals().put(this, value);
    }
  }

  /** Forgets this session's value; the next {@link #get()} asks the initial supplier again. */
  public void remove() {
    Fiber fiber = Sessions.current();
    if (fiber == null) {
      onThreads.remove();
    } else {
      fiber.locals().remove(this);
    }
  }
}
