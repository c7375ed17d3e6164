package io.weft.simulation;

import io.weft.continuations.ContinuationClassLoader;
import io.weft.continuations.InstrumentationReport;
import io.weft.continuations.NotInstrumentableException;
import io.weft.transport.SessionTask;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Loading a simulation's tasks through its instrumenting loader, as {@code CONTINUATIONS} mode
 * does: by name, refused before anything runs if they cannot suspend, made with JDK-typed
 * constructor arguments.
 */
final class Tasks {
  private final ContinuationClassLoader loader;

  Tasks(ContinuationClassLoader loader) {
    this.loader = loader;
  }

  /** The loader that rewrote the tasks' classes (and defines each session's bottom frame). */
  ContinuationClassLoader loader() {
    return loader;
  }

  SessionTask<?> newTask(Class<?> type, Object[] args) {
    String name = type.getName();
    if (!loader.inPackages(name)) {
      throw new IllegalArgumentException("task class " + name + " is not under the instrumented packages "
          + loader.packages() + ": add its package with Simulation.Builder.instrument(...)");
    }
    List<InstrumentationReport.Problem> problems = new ArrayList<>(loader.problemsFor(name));
    if (!problems.isEmpty()) {
      StringBuilder message = new StringBuilder(name + " cannot run in a simulation:");
      for (InstrumentationReport.Problem p : problems) {
        message.append("\n  ").append(p);
      }
      throw new NotInstrumentableException(message.toString(), problems);
    }
    Class<?> loaded;
    try {
      loaded = Class.forName(name, true, loader);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("cannot load " + name + " through the simulation's class loader: " + e, e);
    }
    for (Constructor<?> c : loaded.getConstructors()) {
      if (fits(c.getParameterTypes(), args)) {
        try {
          return (SessionTask<?>) c.newInstance(args);
        } catch (InvocationTargetException e) {
          throw new IllegalArgumentException("constructor of " + name + " threw " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
          throw new IllegalArgumentException("cannot make " + name + ": " + e, e);
        }
      }
    }
    throw new IllegalArgumentException("no public constructor of " + name + " takes " + Arrays.toString(args)
        + " (a task class must be public with a public constructor)");
  }

  private static boolean fits(Class<?>[] params, Object[] args) {
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
    if (primitive == int.class) {
      return Integer.class;
    }
    if (primitive == long.class) {
      return Long.class;
    }
    if (primitive == boolean.class) {
      return Boolean.class;
    }
    if (primitive == double.class) {
      return Double.class;
    }
    if (primitive == float.class) {
      return Float.class;
    }
    if (primitive == short.class) {
      return Short.class;
    }
    if (primitive == byte.class) {
      return Byte.class;
    }
    return Character.class;
  }
}
