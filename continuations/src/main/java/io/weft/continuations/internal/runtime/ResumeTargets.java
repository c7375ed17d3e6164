package io.weft.continuations.internal.runtime;

import io.weft.continuations.internal.rewrite.RewrittenMethods;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which method a virtual or interface call dispatches to on an object of a given class, and
 * whether that method passes a resume on: it was rewritten, or it is a compiler bridge (which only
 * casts and calls the rewritten method on the same object). Worked out once per class and method,
 * by reflection; read on every resume through a call {@link Guard#onResume} checks.
 */
final class ResumeTargets {
  /** The class that declares the dispatched method, or null when it is not one that passes a resume on. */
  private static final ClassValue<ConcurrentHashMap<String, Object>> DISPATCH = new ClassValue<>() {
    @Override
    protected ConcurrentHashMap<String, Object> computeValue(Class<?> type) {
      return new ConcurrentHashMap<>();
    }
  };
  private static final Object NOT_REWRITTEN = new Object();

  private ResumeTargets() {}

  /** True if calling {@code method} (name + descriptor) on an object of {@code type} reaches a rewritten method. */
  static boolean passesResume(Class<?> type, String method) {
    ConcurrentHashMap<String, Object> known = DISPATCH.get(type);
    Object declaring = known.get(method);
    if (declaring == null) {
      declaring = known.computeIfAbsent(method, m -> resolve(type, m));
    }
    return declaring != NOT_REWRITTEN;
  }

  /** The class declaring the method {@code method} dispatches to on {@code type}, for the error; null if none. */
  static Class<?> declaring(Class<?> type, String method) {
    Method m = dispatched(type, method);
    return m == null ? null : m.getDeclaringClass();
  }

  private static Object resolve(Class<?> type, String method) {
    Method m = dispatched(type, method);
    if (m == null) {
      return NOT_REWRITTEN;
    }
    int paren = method.indexOf('(');
    boolean passes = m.isBridge()
        || RewrittenMethods.isRewritten(m.getDeclaringClass(), method.substring(0, paren), method.substring(paren));
    return passes ? m.getDeclaringClass() : NOT_REWRITTEN;
  }

  /** The method a call of {@code method} on an object of {@code type} runs: its class's or inherited. */
  private static Method dispatched(Class<?> type, String method) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      Method m = declared(c, method);
      if (m != null && !Modifier.isAbstract(m.getModifiers())) {
        return m;
      }
    }
    Deque<Class<?>> todo = new ArrayDeque<>();
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      todo.addAll(List.of(c.getInterfaces()));
    }
    while (!todo.isEmpty()) {
      Class<?> itf = todo.poll();
      Method m = declared(itf, method);
      if (m != null && m.isDefault()) {
        return m;
      }
      todo.addAll(List.of(itf.getInterfaces()));
    }
    return null;
  }

  private static Method declared(Class<?> c, String method) {
    Method[] methods;
    try {
      methods = c.getDeclaredMethods();
    } catch (LinkageError e) {
      return null;
    }
    for (Method m : methods) {
      if (!Modifier.isStatic(m.getModifiers()) && method.startsWith(m.getName() + "(")
          && method.equals(m.getName() + MethodType.methodType(m.getReturnType(), m.getParameterTypes())
              .toMethodDescriptorString())) {
        return m;
      }
    }
    return null;
  }
}
