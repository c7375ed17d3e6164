package io.weft.continuations.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Starts virtual threads on JDK 21+ through method handles, so that this module still compiles
 * for release 17; on older JDKs says plainly that it needs 21.
 */
public final class VirtualThreads {
  private static final MethodHandle OF_VIRTUAL;
  private static final MethodHandle NAME;
  private static final MethodHandle START;

  static {
    MethodHandle ofVirtual = null;
    MethodHandle name = null;
    MethodHandle start = null;
    try {
      Class<?> builder = Class.forName("java.lang.Thread$Builder");
      Class<?> ofVirtualType = Class.forName("java.lang.Thread$Builder$OfVirtual");
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      ofVirtual = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtualType));
      name = lookup.findVirtual(ofVirtualType, "name", MethodType.methodType(ofVirtualType, String.class));
      start = lookup.findVirtual(builder, "start", MethodType.methodType(Thread.class, Runnable.class));
    } catch (ReflectiveOperationException | LinkageError e) {
      ofVirtual = null;
    }
    OF_VIRTUAL = ofVirtual;
    NAME = name;
    START = start;
  }

  private VirtualThreads() {}

  public static boolean available() {
    return OF_VIRTUAL != null;
  }

  /** Throws {@link UnsupportedOperationException} unless this JDK has virtual threads. */
  public static void check() {
    if (!available()) {
      throw new UnsupportedOperationException("VIRTUAL_THREADS mode needs JDK 21 or later; this is JDK "
          + Runtime.version().feature() + ". Use THREADS or CONTINUATIONS mode here.");
    }
  }

  /** Starts {@code task} on a new virtual thread named {@code name}. */
  public static Thread start(String name, Runnable task) {
    check();
    try {
      Object builder = OF_VIRTUAL.invoke();
      builder = NAME.invoke(builder, name);
      return (Thread) START.invoke(builder, task);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("cannot start a virtual thread: " + t, t);
    }
  }
}
