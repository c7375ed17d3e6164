package io.weft.perf.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Virtual threads for code compiled for Java 17: found by reflection once, so the benchmarks
 * build for release 17 and use virtual threads when they run on JDK 21+.
 */
public final class VirtualThreads {
  private static final MethodHandle START_VIRTUAL_THREAD;
  private static final String UNAVAILABLE_REASON;

  static {
    MethodHandle start = null;
    String reason = null;
    int feature = Runtime.version().feature();
    if (feature < 21) {
      reason = "virtual threads need JDK 21+, this is JDK " + Runtime.version();
    } else {
      try {
        start = MethodHandles.publicLookup().findStatic(
            Thread.class, "startVirtualThread", MethodType.methodType(Thread.class, Runnable.class));
      } catch (ReflectiveOperationException e) {
        reason = "Thread.startVirtualThread not found on JDK " + Runtime.version() + ": " + e;
      }
    }
    START_VIRTUAL_THREAD = start;
    UNAVAILABLE_REASON = reason;
  }

  private VirtualThreads() {
  }

  /** True when this JVM has virtual threads. */
  public static boolean available() {
    return START_VIRTUAL_THREAD != null;
  }

  /** Why virtual threads cannot be used here, or null when they can. */
  public static String unavailableReason() {
    return UNAVAILABLE_REASON;
  }

  /**
   * Starts {@code task} on a new virtual thread.
   *
   * @throws UnsupportedOperationException on a JDK without virtual threads, saying why
   */
  public static Thread start(Runnable task) {
    if (START_VIRTUAL_THREAD == null) {
      throw new UnsupportedOperationException(UNAVAILABLE_REASON);
    }
    try {
      return (Thread) START_VIRTUAL_THREAD.invokeExact(task);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }
}
