package io.weft.perf.peers;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Optional;

/**
 * This process's context switches from {@code getrusage(RUSAGE_SELF)}, which, unlike the live
 * threads' {@code /proc/self/task/*}{@code /status}, keeps the counts of threads that have ended
 * (a THREADS run's session threads). Called through the Foreign Function API, found by
 * reflection so the benchmarks still build for release 17: available on JDK 22+ on 64-bit Linux
 * (x86-64, aarch64: the same {@code struct rusage} layout), otherwise {@link #unavailableReason()}
 * says why and the caller falls back. JDK 24+ warns once on stderr that a restricted method was
 * called unless the JVM runs with {@code --enable-native-access=ALL-UNNAMED}.
 */
final class SelfRusage {
  /** {@code struct rusage}: two timevals (16 bytes each), then 14 longs; ru_nvcsw is the 13th. */
  private static final int SIZE = 144;
  private static final long NVCSW_OFFSET = 32 + 12 * 8;
  private static final long NIVCSW_OFFSET = NVCSW_OFFSET + 8;
  private static final int RUSAGE_SELF = 0;

  private static final MethodHandle GETRUSAGE;
  private static final Object BUFFER;
  private static final Method GET_LONG;
  private static final Object JAVA_LONG;
  private static final String UNAVAILABLE;

  static {
    MethodHandle getrusage = null;
    Object buffer = null;
    Method getLong = null;
    Object javaLong = null;
    String why = null;
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (Runtime.version().feature() < 22) {
      why = "getrusage needs the Foreign Function API of JDK 22+, this is JDK " + Runtime.version();
    } else if (!System.getProperty("os.name", "").startsWith("Linux")
        || !(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
      why = "getrusage's struct layout is known here only for 64-bit Linux, not " + System.getProperty("os.name")
          + " " + arch;
    } else {
      try {
        Class<?> linkerType = Class.forName("java.lang.foreign.Linker");
        Class<?> layoutType = Class.forName("java.lang.foreign.MemoryLayout");
        Class<?> valueLayoutType = Class.forName("java.lang.foreign.ValueLayout");
        Class<?> segmentType = Class.forName("java.lang.foreign.MemorySegment");
        Class<?> descriptorType = Class.forName("java.lang.foreign.FunctionDescriptor");
        Class<?> optionType = Class.forName("java.lang.foreign.Linker$Option");
        Class<?> arenaType = Class.forName("java.lang.foreign.Arena");
        Class<?> ofLongType = Class.forName("java.lang.foreign.ValueLayout$OfLong");
        Object linker = linkerType.getMethod("nativeLinker").invoke(null);
        Object lookup = linkerType.getMethod("defaultLookup").invoke(linker);
        Optional<?> symbol = (Optional<?>) Class.forName("java.lang.foreign.SymbolLookup")
            .getMethod("find", String.class).invoke(lookup, "getrusage");
        if (symbol.isEmpty()) {
          throw new IllegalStateException("no getrusage in the C library");
        }
        Object javaInt = valueLayoutType.getField("JAVA_INT").get(null);
        Object address = valueLayoutType.getField("ADDRESS").get(null);
        Object arguments = Array.newInstance(layoutType, 2);
        Array.set(arguments, 0, javaInt);
        Array.set(arguments, 1, address);
        Object descriptor = descriptorType.getMethod("of", layoutType, arguments.getClass())
            .invoke(null, javaInt, arguments);
        Object noOptions = Array.newInstance(optionType, 0);
        getrusage = (MethodHandle) linkerType.getMethod("downcallHandle", segmentType, descriptorType,
            noOptions.getClass()).invoke(linker, symbol.get(), descriptor, noOptions);
        // One buffer for the life of the JVM: the global arena is never freed.
        Object arena = arenaType.getMethod("global").invoke(null);
        buffer = arenaType.getMethod("allocate", long.class).invoke(arena, (long) SIZE);
        javaLong = valueLayoutType.getField("JAVA_LONG").get(null);
        getLong = segmentType.getMethod("get", ofLongType, long.class);
        int rc = (int) getrusage.invoke(RUSAGE_SELF, buffer);
        if (rc != 0) {
          throw new IllegalStateException("getrusage returned " + rc);
        }
      } catch (Throwable e) {
        getrusage = null;
        why = "getrusage through the Foreign Function API failed: " + e;
      }
    }
    GETRUSAGE = getrusage;
    BUFFER = buffer;
    GET_LONG = getLong;
    JAVA_LONG = javaLong;
    UNAVAILABLE = why;
  }

  private SelfRusage() {
  }

  /** Null when {@link #contextSwitches()} works here, else why not. */
  static String unavailableReason() {
    return UNAVAILABLE;
  }

  /**
   * Voluntary + involuntary context switches of this process so far, ended threads included.
   * Not thread-safe (one buffer).
   *
   * @throws IllegalStateException when unavailable or the call fails
   */
  static long contextSwitches() {
    long[] both = switches();
    return both[0] + both[1];
  }

  /**
   * Voluntary context switches of this process so far, ended threads included: a thread gave up
   * its core (a sleep in a selector, a park, a blocking call), as against being preempted.
   * Not thread-safe (one buffer).
   *
   * @throws IllegalStateException when unavailable or the call fails
   */
  static long voluntaryContextSwitches() {
    return switches()[0];
  }

  /**
   * This process's voluntary and involuntary context switches so far, in that order, from one
   * {@code getrusage} call. Not thread-safe (one buffer).
   *
   * @throws IllegalStateException when unavailable or the call fails
   */
  static long[] switches() {
    if (GETRUSAGE == null) {
      throw new IllegalStateException(UNAVAILABLE);
    }
    try {
      int rc = (int) GETRUSAGE.invoke(RUSAGE_SELF, BUFFER);
      if (rc != 0) {
        throw new IllegalStateException("getrusage returned " + rc);
      }
      return new long[] {(long) GET_LONG.invoke(BUFFER, JAVA_LONG, NVCSW_OFFSET),
          (long) GET_LONG.invoke(BUFFER, JAVA_LONG, NIVCSW_OFFSET)};
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException("getrusage failed: " + e, e);
    }
  }
}
