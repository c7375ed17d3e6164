package io.weft.simulation;

import io.weft.continuations.InstrumentationReport;
import io.weft.continuations.NotInstrumentableException;
import io.weft.continuations.internal.runtime.Fiber;
import io.weft.continuations.internal.runtime.SessionContext;
import io.weft.continuations.internal.runtime.SessionFrame;
import io.weft.transport.SessionTask;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;
import java.util.List;

/**
 * Loading a simulation's tasks through its instrumenting loader, as {@code CONTINUATIONS} mode
 * does: by name, refused before anything runs if they cannot suspend, made with JDK-typed
 * constructor arguments; and the rewritten session frame each fiber starts in.
 */
final class Tasks {
  private final SimulationClassLoader loader;
  private final Constructor<?> frame;

  Tasks(SimulationClassLoader loader) {
    this.loader = loader;
    try {
      frame = Class.forName(SessionFrame.class.getName(), true, loader).getConstructor(SessionContext.class);
    } catch (ClassNotFoundException | NoSuchMethodException e) {
      throw new IllegalStateException("cannot load the session frame through " + loader + ": " + e, e);
    }
  }

  SessionTask<?> newTask(Class<?> type, Object[] args) {
    String name = type.getName();
    if (!loader.inPackages(name)) {
      throw new IllegalArgumentException("task class " + name + " is not under the instrumented packages "
          + loader.packages() + ": add its package with Simulation.Builder.instrument(...)");
    }
    List<InstrumentationReport.Problem> problems = loader.problemsFor(name);
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

  Runnable frame(Fiber fiber) {
    try {
      return (Runnable) frame.newInstance(fiber);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot make the session frame: " + e, e);
    }
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
