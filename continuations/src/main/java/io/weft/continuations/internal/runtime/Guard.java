package io.weft.continuations.internal.runtime;

import io.weft.continuations.NotInstrumentedError;
import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.apache.commons.javaflow.core.StackRecorder;

/**
 * The cheap run-time check. While a continuation is being captured, frames only return through
 * the engine's capture code; no rewritten method is ever entered, and none returns by its own
 * code. So entering one, or one returning normally, while the recorder is capturing proves that
 * a frame which was not rewritten swallowed the suspend and carried on. The class rewriter calls
 * {@link #onEntry()} first thing in every method it rewrites and {@link #onReturn()} before each
 * of its returns; {@link CheckedTransport} calls {@link #onEntry()} on entry to every transport
 * operation. Rewritten code passes them the recorder its method's prologue looked up (one thread-local
 * read the engine makes anyway); the forms without an argument, for the transport wrapper and classes
 * rewritten before that, make one thread-local read each. {@link #onResume} is the check at a resume, which
 * catches a swallowed suspend that the others cannot see before any code runs twice; {@link
 * #onCapture} makes the same check one suspend earlier, while the frame captures itself. Rewritten
 * code reaches either through a call site of its own ({@link #captureSite}, {@link #resumeSite}),
 * which skips the class lookup for the receiver class that last passed there.
 */
public final class Guard {
  public static final String INTERNAL_NAME = "io/weft/continuations/internal/runtime/Guard";
  /** The descriptor of {@link #captureSite} and {@link #resumeSite}, the bootstraps of the check's call sites. */
  public static final String RESUME_SITE_BOOTSTRAP = "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;"
      + "Ljava/lang/invoke/MethodType;Ljava/lang/String;)Ljava/lang/invoke/CallSite;";

  /**
   * True when {@link #captureSite} can read JavaFlow's reference stack: the rewriter then checks a
   * restored call while the frame captures itself, and otherwise in its restore code.
   */
  public static final boolean CHECKS_AT_CAPTURE = CapturedStacks.enabled();

  private Guard() {}

  public static void onEntry() {
    StackRecorder recorder = StackRecorder.get();
    if (recorder != null && recorder.isCapturing) {
      throw swallowed(recorder);
    }
  }

  public static void onReturn() {
    StackRecorder recorder = StackRecorder.get();
    if (recorder != null && recorder.isCapturing) {
      throw swallowed(recorder);
    }
  }

  /**
   * {@link #onEntry()} with the recorder the engine's prologue of the calling method looked up
   * (the class rewriter passes it: the same recorder, without a second thread-local look-up).
   */
  public static void onEntry(StackRecorder recorder) {
    if (recorder != null && recorder.isCapturing) {
      throw swallowed(recorder);
    }
  }

  /** {@link #onReturn()} with the recorder of the calling method's prologue, as {@link #onEntry(StackRecorder)}. */
  public static void onReturn(StackRecorder recorder) {
    if (recorder != null && recorder.isCapturing) {
      throw swallowed(recorder);
    }
  }

  /**
   * The check of a restored call: {@code restored} is the object the engine calls again at the
   * resume (the last one that captured itself), {@code receiver} the object the method called,
   * {@code method} the name and descriptor called. They are the same object, and the call reaches a
   * rewritten method, unless a frame that was not rewritten swallowed the suspend: then the session
   * ends here, before that frame's code runs a second time or is skipped. Reached through {@link
   * #onCapture} while the caller captures itself; made here directly, in the engine's restore code
   * just before the call, only in classes rewritten where JavaFlow's reference stack could not be read.
   */
  public static void onResume(Object restored, Object receiver, String method) {
    if (restored != receiver || receiver == null || !ResumeTargets.passesResume(receiver.getClass(), method)) {
      throw resumedInto(receiver, method);
    }
  }

  /**
   * The bootstrap of one restored call's check, {@code (Object restored, Object receiver)void}: the
   * check of {@link #onResume} for {@code method}, with a cache of its own of the last receiver class
   * that passed ({@link ResumeSite}), so that each site pays the class lookup once per class it sees.
   */
  public static CallSite resumeSite(MethodHandles.Lookup caller, String name, MethodType type, String method) {
    return new ConstantCallSite(ResumeSite.CHECK.bindTo(new ResumeSite(method, caller.lookupClass().getClassLoader()))
        .asType(type));
  }

  /**
   * The check of {@link #onResume}, made while a rewritten method captures itself right after the
   * call returned ({@code recorder.isCapturing}): the object its restore code will pop and call again
   * is then on top of the recorder's reference stack, so it is compared there with {@code receiver}
   * and no copy of the receiver need be saved with the frame.
   */
  public static void onCapture(StackRecorder recorder, Object receiver, String method) {
    onResume(CapturedStacks.topReference(recorder), receiver, method);
  }

  /**
   * The bootstrap of one call's check at the capture, {@code (StackRecorder recorder, Object
   * receiver)void}: {@link #onCapture} for {@code method}, with the per-site cache of {@link
   * #resumeSite}.
   */
  public static CallSite captureSite(MethodHandles.Lookup caller, String name, MethodType type, String method) {
    return new ConstantCallSite(ResumeSite.CHECK_AT_CAPTURE.bindTo(new ResumeSite(method,
        caller.lookupClass().getClassLoader())).asType(type));
  }

  private static Error resumedInto(Object receiver, String method) {
    String name = method.substring(0, method.indexOf('('));
    Class<?> declaring = receiver == null ? null : ResumeTargets.declaring(receiver.getClass(), method);
    String className = declaring != null ? declaring.getName() : receiver != null ? receiver.getClass().getName() : null;
    StackRecorder recorder = StackRecorder.get();
    Object context = recorder == null ? null : recorder.getContext();
    Fiber fiber = context instanceof Fiber ? (Fiber) context : null;
    NotInstrumentedError e = new NotInstrumentedError(className, name, "session "
        + (fiber == null ? -1 : fiber.index()) + " suspended inside " + className + "." + name
        + ", which is not rewritten for continuations: it carried on as if its call had returned, and"
        + " resuming the session would run its code a second time (or skip it). The session ended there."
        + FrameChecker.FIX);
    return fiber == null ? e : fiber.resumedInto(e);
  }

  private static Error swallowed(StackRecorder recorder) {
    Object context = recorder.getContext();
    if (context instanceof Fiber) {
      return ((Fiber) context).swallowed();
    }
    return FrameChecker.swallowedSuspend(-1);
  }
}
