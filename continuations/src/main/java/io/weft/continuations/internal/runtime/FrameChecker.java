package io.weft.continuations.internal.runtime;

import io.weft.continuations.internal.rewrite.RewrittenMethods;
import io.weft.continuations.runtime.spi.SelfCheckingTransport;
import io.weft.continuations.NotInstrumentedError;
import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingConnectionTransport;
import java.lang.StackWalker.Option;
import java.lang.StackWalker.StackFrame;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Walks the suspend path (from the transport down to the session's bottom frame) and names the
 * first frame the engine did not rewrite. Costs a few microseconds: it runs on every suspend only
 * in debug mode (and for the first suspends of a run, and all of a run that has swallowed one),
 * otherwise only to name the culprit once a failure is certain.
 *
 * <p>Two kinds of frame are never rewritten yet pass a suspend through untouched, because they
 * only forward their arguments to a rewritten method and the engine restores that method's
 * frame, not theirs: a compiler bridge method (an erased or covariant override) and the proxy of
 * a lambda or method reference, provided the interface method they were called through is not a
 * JDK one (a JDK caller's call site is never rewritten, so the suspend is swallowed there).
 */
public final class FrameChecker {
  private static final StackWalker WALKER = StackWalker.getInstance(EnumSet.of(
      Option.RETAIN_CLASS_REFERENCE, Option.SHOW_REFLECT_FRAMES, Option.SHOW_HIDDEN_FRAMES));
  static final String FIX =
      " Fix: if it is your code, add its package to the instrumented packages"
          + " (SessionRunner.Builder.instrument, or the packages given to the Rewrite tool or the"
          + " agent when the runner is alreadyRewritten()); call the Transport directly from instrumented"
          + " code, never through JDK code (java.io readers and streams, lambdas or method"
          + " references handed to JDK methods such as List.sort or streams, reflection or method handles), which"
          + " can never suspend; a library transport must be rewritten by the JavaFlow build step."
          + " Or run this task in THREADS or VIRTUAL_THREADS mode.";

  private static final ClassValue<java.util.Set<String>> PASS_THROUGH = new ClassValue<>() {
    @Override
    protected java.util.Set<String> computeValue(Class<?> type) {
      java.util.Set<String> keys = new java.util.HashSet<>();
      Method[] methods;
      try {
        methods = type.getDeclaredMethods();
      } catch (LinkageError e) {
        return java.util.Set.of();
      }
      boolean lambdaProxy = type.isHidden() && type.getName().contains("$$Lambda");
      for (Method m : methods) {
        if ((m.isBridge() || lambdaProxy) && calledThroughOwnType(type, m)) {
          keys.add(m.getName() + MethodType.methodType(m.getReturnType(), m.getParameterTypes())
              .toMethodDescriptorString());
        }
      }
      return java.util.Set.copyOf(keys);
    }
  };

  private FrameChecker() {}

  /** Debug mode: throws if any frame on the suspend path was not rewritten. */
  static void checkSuspendPath(int session) {
    StackFrame[] bad = firstUnrewritten(frames());
    if (bad != null) {
      throw error(session, bad, "cannot suspend: frame ");
    }
  }

  /**
   * The run-time check fired: a suspend was swallowed. Names the frame that was not rewritten if
   * it is still on the stack; otherwise the rewritten method that carried on after it returned.
   */
  public static NotInstrumentedError swallowedSuspend(int session) {
    List<StackFrame> frames = frames();
    StackFrame[] bad = firstUnrewritten(frames);
    if (bad != null) {
      return error(session, bad, "suspended through a frame that was not rewritten: ");
    }
    StackFrame[] carried = firstUserFrame(frames);
    if (carried != null) {
      StackFrame r = carried[0];
      String[] call = CallSites.lastUnrewrittenCall(r.getDeclaringClass(), r.getMethodName(), r.getDescriptor(),
          r.getLineNumber());
      if (call != null) {
        return new NotInstrumentedError(call[0], call[1], "session " + session + " suspended through "
            + call[0] + "." + call[1] + ", called from " + describe(r) + ", which is not rewritten for"
            + " continuations: it carried on as if the call had returned, and " + r.getMethodName()
            + " went on running. The session ended there and did not run on." + FIX);
      }
    }
    String where = carried == null ? "" : ", into " + describe(carried[0])
        + (carried[1] == null ? "" : " (called from " + describe(carried[1]) + ")");
    return new NotInstrumentedError(null, null, "session " + session
        + " suspended through a frame that was not rewritten, which carried on as if the call had"
        + " returned" + where + "; that frame has returned since: it is a call made there, through"
        + " reflection, a method handle, or a class outside the instrumented packages. The session"
        + " ended there and did not run on. Every later suspend of this run is checked and names"
        + " it; SessionRunner.Builder.debugFrames(true) checks from the first." + FIX);
  }

  private static List<StackFrame> frames() {
    return WALKER.walk(s -> s.collect(Collectors.toList()));
  }

  private static NotInstrumentedError error(int session, StackFrame[] bad, String what) {
    StackFrame frame = bad[0];
    String caller = bad[1] == null ? "" : ", called from " + describe(bad[1]);
    String through = bad[3] == null ? "" : " through " + describe(bad[3]);
    String inner = bad[2] == null ? "" : " (nor is what it calls on the way to the wait" + through + ", down to "
        + describe(bad[2]) + ")";
    return new NotInstrumentedError(frame.getClassName(), frame.getMethodName(),
        "session " + session + " " + what + describe(frame) + caller + ", is not rewritten for continuations"
            + inner + "." + FIX);
  }

  private static String describe(StackFrame frame) {
    return frame.getClassName() + "." + frame.getMethodName()
        + (frame.getLineNumber() > 0 ? " (" + frame.getFileName() + ":" + frame.getLineNumber() + ")" : "");
  }

  /**
   * {the frame not rewritten that a rewritten frame called, that rewritten caller or null, the
   * innermost frame not rewritten of that run when it is another or null}, or null when the
   * whole path is fine.
   */
  private static StackFrame[] firstUnrewritten(List<StackFrame> frames) {
    int i = skipWeftTop(frames);
    for (; i < frames.size(); i++) {
      StackFrame frame = frames.get(i);
      if (!fine(frame)) {
        // The run of frames not rewritten from here towards the task: name the one the task's
        // side called (a Method.invoke, a helper's entry point), not a JDK internal above it.
        Deque<StackFrame> run = new ArrayDeque<>();
        int j = i;
        for (; j < frames.size() && !fine(frames.get(j)); j++) {
          run.push(frames.get(j));
        }
        StackFrame caller = j < frames.size() ? frames.get(j) : null;
        StackFrame jdk = null;
        for (StackFrame f : run) {
          if (isJdk(f.getDeclaringClass()) && !f.getDeclaringClass().isHidden()) {
            jdk = f;
            break;
          }
        }
        StackFrame entry = run.peek();
        for (StackFrame f : run) {
          if (!f.getDeclaringClass().isHidden()) {
            entry = f;
            break;
          }
        }
        return new StackFrame[] {entry, caller, entry == frame ? null : frame, jdk == entry ? null : jdk};
      }
      if (isBottom(frame)) {
        return null;
      }
    }
    return null;
  }

  /** {the first frame below Weft's own, its caller or null}, or null. */
  private static StackFrame[] firstUserFrame(List<StackFrame> frames) {
    int i = skipWeftTop(frames);
    // The transport the task called (the checked wrapper, or a suspending transport that checks
    // itself) is not the frame that carried on.
    while (i < frames.size() && isTransportEntry(frames.get(i).getDeclaringClass())) {
      i++;
    }
    if (i >= frames.size() || isBottom(frames.get(i))) {
      return null;
    }
    StackFrame caller = i + 1 < frames.size() && !isBottom(frames.get(i + 1)) ? frames.get(i + 1) : null;
    return new StackFrame[] {frames.get(i), caller};
  }

  private static boolean isTransportEntry(Class<?> type) {
    return type.getName().equals(CheckedTransport.class.getName()) || type == SuspendingConnectionTransport.class;
  }

  private static int skipWeftTop(List<StackFrame> frames) {
    int i = 0;
    while (i < frames.size() && isWeftTop(frames.get(i).getDeclaringClass())) {
      i++;
    }
    return i;
  }

  private static boolean isBottom(StackFrame frame) {
    return frame.getClassName().equals(SessionFrame.class.getName()) && frame.getMethodName().equals("run");
  }

  private static boolean fine(StackFrame frame) {
    Class<?> type = frame.getDeclaringClass();
    String key = frame.getMethodName() + frame.getDescriptor();
    return RewrittenMethods.isRewritten(type, frame.getMethodName(), frame.getDescriptor())
        || PASS_THROUGH.get(type).contains(key);
  }

  /** True when every type above {@code type} that declares {@code m}'s signature is not the JDK's. */
  private static boolean calledThroughOwnType(Class<?> type, Method m) {
    boolean found = false;
    Deque<Class<?>> todo = new ArrayDeque<>();
    if (type.getSuperclass() != null) {
      todo.add(type.getSuperclass());
    }
    todo.addAll(List.of(type.getInterfaces()));
    while (!todo.isEmpty()) {
      Class<?> t = todo.poll();
      try {
        t.getDeclaredMethod(m.getName(), m.getParameterTypes());
        if (isJdk(t)) {
          return false;
        }
        found = true;
      } catch (NoSuchMethodException e) {
        // not declared here; look further up
      }
      if (t.getSuperclass() != null) {
        todo.add(t.getSuperclass());
      }
      todo.addAll(List.of(t.getInterfaces()));
    }
    return found;
  }

  private static boolean isJdk(Class<?> type) {
    ClassLoader loader = type.getClassLoader();
    return loader == null || loader == ClassLoader.getPlatformClassLoader();
  }

  private static boolean isWeftTop(Class<?> type) {
    return type == FrameChecker.class || type == Fiber.class || type == Suspend.class
        || type == Guard.class || type == SelfCheckingTransport.class
        || type.getName().startsWith("io.weft.continuations.Session");
  }
}
