package io.weft.continuations.internal;

import io.weft.continuations.NotInstrumentedError;
import io.weft.continuations.Suspend;
import java.lang.StackWalker.Option;
import java.lang.StackWalker.StackFrame;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Walks the suspend path (from the transport down to the session's bottom frame) and names the
 * first frame the engine did not rewrite. Costs a few microseconds: it runs on every suspend only
 * in debug mode, otherwise only to name the culprit once a failure is certain.
 */
public final class FrameChecker {
  private static final StackWalker WALKER = StackWalker.getInstance(EnumSet.of(
      Option.RETAIN_CLASS_REFERENCE, Option.SHOW_REFLECT_FRAMES, Option.SHOW_HIDDEN_FRAMES));
  private static final String FIX =
      " Fix: if it is your code, add its package to the instrumented packages"
          + " (SessionRunner.Builder.instrument, or the packages given to the Rewrite tool or the"
          + " agent when the runner is alreadyRewritten()); call the Transport directly from instrumented"
          + " code, never through JDK code (java.io readers and streams, lambdas or method"
          + " references through java.util.function or streams, reflection), which can never"
          + " suspend; a library transport must be rewritten by the JavaFlow build step."
          + " Or run this task in THREADS or VIRTUAL_THREADS mode.";

  private FrameChecker() {}

  /** Debug mode: throws if any frame on the suspend path was not rewritten. */
  static void checkSuspendPath(int session) {
    StackFrame[] bad = firstUnrewritten();
    if (bad != null) {
      throw error(session, bad, "cannot suspend: frame ");
    }
  }

  /** The run-time check fired: a suspend was swallowed. Name the frame if it is still there. */
  public static NotInstrumentedError swallowedSuspend(int session) {
    StackFrame[] bad = firstUnrewritten();
    if (bad != null) {
      return error(session, bad, "suspended through a frame that was not rewritten: ");
    }
    return new NotInstrumentedError(null, null, "session " + session
        + " suspended through a frame that was not rewritten, which carried on as if the call had"
        + " returned; that frame has returned since and cannot be named here. Run with"
        + " SessionRunner.Builder.debugFrames(true) to have it named at the first suspend." + FIX);
  }

  private static NotInstrumentedError error(int session, StackFrame[] bad, String what) {
    StackFrame frame = bad[0];
    String caller = bad[1] == null ? "" : ", called from " + describe(bad[1]);
    return new NotInstrumentedError(frame.getClassName(), frame.getMethodName(),
        "session " + session + " " + what + describe(frame) + " is not rewritten for continuations"
            + caller + "." + FIX);
  }

  private static String describe(StackFrame frame) {
    return frame.getClassName() + "." + frame.getMethodName()
        + (frame.getLineNumber() > 0 ? " (" + frame.getFileName() + ":" + frame.getLineNumber() + ")" : "");
  }

  /** {bad frame, its nearest rewritten caller or null}, or null when the whole path is fine. */
  private static StackFrame[] firstUnrewritten() {
    List<StackFrame> frames = WALKER.walk(s -> s.collect(Collectors.toList()));
    int i = 0;
    // Skip this checker, the fiber and Suspend itself.
    while (i < frames.size() && isWeftTop(frames.get(i).getDeclaringClass())) {
      i++;
    }
    for (; i < frames.size(); i++) {
      StackFrame frame = frames.get(i);
      Class<?> type = frame.getDeclaringClass();
      boolean bottom = type.getName().equals(SessionFrame.class.getName()) && frame.getMethodName().equals("run");
      if (!RewrittenMethods.isRewritten(type, frame.getMethodName(), frame.getDescriptor())) {
        StackFrame caller = null;
        for (int j = i + 1; j < frames.size(); j++) {
          StackFrame c = frames.get(j);
          if (RewrittenMethods.isRewritten(c.getDeclaringClass(), c.getMethodName(), c.getDescriptor())) {
            caller = c;
            break;
          }
        }
        return new StackFrame[] {frame, caller};
      }
      if (bottom) {
        return null;
      }
    }
    return null;
  }

  private static boolean isWeftTop(Class<?> type) {
    return type == FrameChecker.class || type == Fiber.class || type == Suspend.class
        || type == Guard.class;
  }
}
