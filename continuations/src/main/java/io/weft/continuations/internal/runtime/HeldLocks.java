package io.weft.continuations.internal.runtime;

import io.weft.continuations.NotInstrumentedError;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.commons.javaflow.core.Stack;

/**
 * Debug mode: finds a {@code java.util.concurrent} lock that the worker thread holds across a
 * suspend, among what the suspended continuation keeps: the locals and {@code this} of every
 * captured frame, their fields and their classes' static fields. Such a lock belongs to the
 * thread, not the session: while the session is suspended it guards other sessions' code, and
 * the session may resume on another thread that does not hold it.
 *
 * <p>Why not {@code ThreadMXBean.getThreadInfo(ids, false, true)}: the JVM answers that by
 * walking the whole heap at a safepoint, milliseconds per suspend, which made a debug run of a
 * few thousand suspends take minutes. This scan costs microseconds and only in debug mode.
 */
final class HeldLocks {
  private static final Field OBJECTS;
  private static final Field OBJECTS_TOP;
  private static final Field REFERENCES;
  private static final Field REFERENCES_TOP;

  static {
    try {
      OBJECTS = accessible(Stack.class.getDeclaredField("ostack"));
      OBJECTS_TOP = accessible(Stack.class.getDeclaredField("oTop"));
      REFERENCES = accessible(Stack.class.getDeclaredField("rstack"));
      REFERENCES_TOP = accessible(Stack.class.getDeclaredField("rTop"));
    } catch (NoSuchFieldException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private HeldLocks() {}

  /** The error that ends the session if the suspended {@code stack} keeps a lock this thread holds, or null. */
  static NotInstrumentedError find(Stack stack, int session) {
    Object held;
    try {
      Map<Object, Boolean> seen = new IdentityHashMap<>();
      held = scan((Object[]) OBJECTS.get(stack), OBJECTS_TOP.getInt(stack), seen);
      if (held == null) {
        held = scan((Object[]) REFERENCES.get(stack), REFERENCES_TOP.getInt(stack), seen);
      }
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
    if (held == null) {
      return null;
    }
    return new NotInstrumentedError(held.getClass().getName(), null, "session " + session
        + " suspended while its worker thread holds " + held + ": a java.util.concurrent lock belongs"
        + " to the thread, not the session, so across a suspend it would guard other sessions' code"
        + " and not this one's. Fix: use io.weft.continuations.SessionLock or SessionSemaphore, which"
        + " suspend the session instead of blocking the worker, or run this task in THREADS or"
        + " VIRTUAL_THREADS mode.");
  }

  private static Object scan(Object[] objects, int top, Map<Object, Boolean> seen) throws IllegalAccessException {
    for (int i = 0; i < top; i++) {
      Object o = objects[i];
      if (o == null || seen.put(o, Boolean.TRUE) != null) {
        continue;
      }
      if (heldHere(o)) {
        return o;
      }
      Object inField = fields(o);
      if (inField != null) {
        return inField;
      }
    }
    return null;
  }

  /** One level down: the object's own fields and its class's static fields, JDK types excepted. */
  private static Object fields(Object o) throws IllegalAccessException {
    for (Class<?> c = o.getClass(); c != null && c.getClassLoader() != null
        && c.getClassLoader() != ClassLoader.getPlatformClassLoader(); c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (f.getType().isPrimitive() || !f.trySetAccessible()) {
          continue;
        }
        Object v = f.get(Modifier.isStatic(f.getModifiers()) ? null : o);
        if (v != null && heldHere(v)) {
          return v;
        }
      }
    }
    return null;
  }

  private static boolean heldHere(Object o) {
    if (o instanceof ReentrantLock) {
      return ((ReentrantLock) o).isHeldByCurrentThread();
    }
    if (o instanceof ReentrantReadWriteLock) {
      ReentrantReadWriteLock rw = (ReentrantReadWriteLock) o;
      return rw.isWriteLockedByCurrentThread() || rw.getReadHoldCount() > 0;
    }
    if (o instanceof ReentrantReadWriteLock.WriteLock) {
      return ((ReentrantReadWriteLock.WriteLock) o).isHeldByCurrentThread();
    }
    return false;
  }

  private static Field accessible(Field f) {
    f.setAccessible(true);
    return f;
  }
}
