package io.weft.continuations.internal.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.WeakReference;
import org.apache.commons.javaflow.core.Stack;

/**
 * One restored call's check, bound into the rewritten method by {@link Guard#captureSite} (made
 * while the frame captures itself) or {@link Guard#resumeSite} (made in its restore code): it remembers the last receiver class that passed there, so that a resume
 * through a call that keeps seeing objects of one class compares two classes instead of looking the
 * dispatched method up. Anything else (the first resume, another class, a class of the same name
 * from another loader, a restored object that is not the receiver) takes {@link Guard#onResume},
 * which refuses exactly what it refused before.
 *
 * <p>A site lives as long as the loader of the class whose code holds it, which can outlive the
 * receiver's: under {@code alreadyRewritten()} the task's classes come from the application's
 * loader while the transport they call is the runner's own rewritten {@code CheckedTransport},
 * defined by a loader of that runner. So a class is held strongly only if its loader is the site's
 * own or one of its parents (which the site's class keeps alive anyway); any other is held weakly.
 */
final class ResumeSite {
  /** {@link #check}, for {@link Guard#resumeSite} to bind to a site's own object. */
  static final MethodHandle CHECK;
  /** {@link #checkAtCapture}, for {@link Guard#captureSite} to bind to a site's own object. */
  static final MethodHandle CHECK_AT_CAPTURE;
  private static final WeakReference<Class<?>> NONE = new WeakReference<>(null);

  static {
    try {
      CHECK = MethodHandles.lookup().findVirtual(ResumeSite.class, "check",
          MethodType.methodType(void.class, Object.class, Object.class));
      CHECK_AT_CAPTURE = MethodHandles.lookup().findVirtual(ResumeSite.class, "checkAtCapture",
          MethodType.methodType(void.class, Stack.class, Object.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final String method;
  /** The loader of the class whose code holds this site; null for the bootstrap loader. */
  private final ClassLoader home;
  /**
   * A class from {@link #home} or one of its parents for which {@link ResumeTargets#passesResume}
   * held for {@link #method}; that depends only on the class, so it stays true. Written without
   * ordering: a thread that reads an older class, or none, takes the full check.
   */
  private Class<?> passed;
  /**
   * The same for a class from any other loader, held weakly so that this site does not keep that
   * loader alive. Compared with {@link WeakReference#refersTo} (a JIT intrinsic from JDK 17 on),
   * which reads the referent without keeping it alive, unlike {@code get} and its barrier: the
   * receiver holds its class, so the answer cannot change under the comparison. Also written
   * without ordering: a thread that sees the reference before its referent sees null, which no
   * class equals, and takes the full check.
   */
  private WeakReference<Class<?>> passedElsewhere = NONE;

  ResumeSite(String method, ClassLoader home) {
    this.method = method;
    this.home = home;
  }

  /**
   * The same check one suspend earlier, while the frame captures itself right after the call
   * returned: the object its restore code will pop is then on top of the recorder's reference stack
   * ({@link CapturedStacks#topReference}).
   */
  void checkAtCapture(Stack recorder, Object receiver) {
    check(CapturedStacks.topReference(recorder), receiver);
  }

  void check(Object restored, Object receiver) {
    if (restored == receiver && receiver != null) {
      // A receiver from the site's own loader (or a parent) costs one comparison, as before the
      // weak slot existed; one from another loader a second load and comparison, not the lookup.
      Class<?> type = receiver.getClass();
      if (type == passed || passedElsewhere.refersTo(type)) {
        return;
      }
    }
    Guard.onResume(restored, receiver, method);
    Class<?> type = receiver.getClass();
    if (isHomeOrParent(type.getClassLoader())) {
      passed = type;
    } else {
      passedElsewhere = new WeakReference<>(type);
    }
  }

  /** True if {@code loader} is {@link #home} or one of its parents (the bootstrap loader, null, always is). */
  private boolean isHomeOrParent(ClassLoader loader) {
    if (loader == null) {
      return true;
    }
    for (ClassLoader l = home; l != null; l = l.getParent()) {
      if (l == loader) {
        return true;
      }
    }
    return false;
  }
}
