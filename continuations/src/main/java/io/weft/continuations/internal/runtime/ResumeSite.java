package io.weft.continuations.internal.runtime;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * One restored call's resume-time check, bound into the rewritten method by {@link
 * Guard#resumeSite}: it remembers the last receiver class that passed there, so that a resume
 * through a call that keeps seeing objects of one class compares two classes instead of looking the
 * dispatched method up. Anything else (the first resume, another class, a class of the same name
 * from another loader, a restored object that is not the receiver) takes {@link Guard#onResume},
 * which refuses exactly what it refused before.
 */
final class ResumeSite {
  /** {@link #check}, for {@link Guard#resumeSite} to bind to a site's own object. */
  static final MethodHandle CHECK;

  static {
    try {
      CHECK = MethodHandles.lookup().findVirtual(ResumeSite.class, "check",
          MethodType.methodType(void.class, Object.class, Object.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final String method;
  /**
   * A class for which {@link ResumeTargets#passesResume} held for {@link #method}; that depends only
   * on the class, so it stays true. Written without ordering: a thread that reads an older class, or
   * none, takes the full check.
   */
  private Class<?> passed;

  ResumeSite(String method) {
    this.method = method;
  }

  void check(Object restored, Object receiver) {
    if (restored == receiver && receiver != null && receiver.getClass() == passed) {
      return;
    }
    Guard.onResume(restored, receiver, method);
    passed = receiver.getClass();
  }
}
