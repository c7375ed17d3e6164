package io.weft.continuations;

import io.weft.transport.SessionTask;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;

/**
 * Makes the one task instance of a run from its class and the constructor arguments given to
 * {@link SessionRunner#run}: the first public constructor whose parameters accept them (a
 * primitive parameter takes its boxed type, never null). By reflection because continuation mode
 * loads the task class by name, through another class loader.
 */
final class TaskFactory {
  private TaskFactory() {}

  /**
   * @throws IllegalArgumentException if no public constructor takes {@code args}, or the one that
   *     does throws
   */
  static SessionTask<?> newTask(Class<?> type, Object[] args) {
    for (Constructor<?> c : type.getConstructors()) {
      if (fits(c.getParameterTypes(), args)) {
        try {
          return (SessionTask<?>) c.newInstance(args);
        } catch (InvocationTargetException e) {
          throw new IllegalArgumentException("constructor of " + type.getName() + " threw " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
          throw new IllegalArgumentException("cannot make " + type.getName() + ": " + e, e);
        }
      }
    }
    throw new IllegalArgumentException("no public constructor of " + type.getName() + " takes "
        + Arrays.toString(args) + " (a task class must be public with a public constructor)");
  }

  static boolean fits(Class<?>[] params, Object[] args) {
    if (params.length != args.length) {
      return false;
    }
    for (int i = 0; i < params.length; i++) {
      Class<?> p = params[i].isPrimitive() ? box(params[i]) : params[i];
      if (args[i] == null ? params[i].isPrimitive() : !p.isInstance(args[i])) {
        return false;
      }
    }
    return true;
  }

  private static Class<?> box(Class<?> primitive) {
    if (primitive == int.class) return Integer.class;
    if (primitive == long.class) return Long.class;
    if (primitive == boolean.class) return Boolean.class;
    if (primitive == double.class) return Double.class;
    if (primitive == float.class) return Float.class;
    if (primitive == short.class) return Short.class;
    if (primitive == byte.class) return Byte.class;
    if (primitive == char.class) return Character.class;
    throw new IllegalArgumentException("not a parameter type: " + primitive);
  }
}
