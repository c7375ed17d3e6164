package io.weft.continuations.internal.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.apache.commons.javaflow.api.Continuation;
import org.apache.commons.javaflow.core.Stack;
import org.apache.commons.javaflow.core.StackRecorder;

/**
 * Trims the arrays of a suspended continuation's captured stack to the most they have held. JavaFlow's
 * {@code Stack} doubles an array that fills as a suspend captures the frames, so a session that
 * waits keeps up to twice the room its frames need: with a million sessions waiting, a few hundred
 * bytes each. Trimmed to what the last capture held, a session whose waits alternate between a
 * shallow and a deeper path (a read, then a flush) would grow its arrays again at every deeper
 * capture and trim them at the next: two array copies per wait. So each session keeps its
 * high-water marks, and an array is trimmed to the most it has held: once a session has taken its
 * deepest path, its captures fit and nothing is copied.
 *
 * <p>JavaFlow has no API for this: the fields are read through private lookups, which the class
 * path grants (JavaFlow's jars are not named modules there). Where they are not granted, or the
 * fields are not the ones of the pinned version, trimming is off and nothing else changes.
 */
final class CapturedStacks {
  private static final VarHandle RECORDER;
  private static final VarHandle PSTACK;
  private static final VarHandle OSTACK;
  private static final VarHandle RSTACK;
  private static final VarHandle[] PRIMITIVE_TOPS;
  private static final VarHandle OTOP;
  private static final VarHandle RTOP;

  static {
    VarHandle recorder = null;
    VarHandle pstack = null;
    VarHandle ostack = null;
    VarHandle rstack = null;
    VarHandle[] tops = null;
    VarHandle otop = null;
    VarHandle rtop = null;
    try {
      MethodHandles.Lookup c = MethodHandles.privateLookupIn(Continuation.class, MethodHandles.lookup());
      MethodHandles.Lookup s = MethodHandles.privateLookupIn(Stack.class, MethodHandles.lookup());
      recorder = c.findVarHandle(Continuation.class, "stackRecorder", StackRecorder.class);
      pstack = s.findVarHandle(Stack.class, "pstack", long[].class);
      ostack = s.findVarHandle(Stack.class, "ostack", Object[].class);
      rstack = s.findVarHandle(Stack.class, "rstack", Object[].class);
      tops = new VarHandle[] {
        s.findVarHandle(Stack.class, "dTop", int.class), s.findVarHandle(Stack.class, "fTop", int.class),
        s.findVarHandle(Stack.class, "lTop", int.class), s.findVarHandle(Stack.class, "iTop", int.class),
      };
      otop = s.findVarHandle(Stack.class, "oTop", int.class);
      rtop = s.findVarHandle(Stack.class, "rTop", int.class);
    } catch (ReflectiveOperationException | RuntimeException e) {
      recorder = null;
    }
    RECORDER = recorder;
    PSTACK = pstack;
    OSTACK = ostack;
    RSTACK = rstack;
    PRIMITIVE_TOPS = tops;
    OTOP = otop;
    RTOP = rtop;
  }

  private CapturedStacks() {}

  /** True when the fields were found: {@link #trim} does something. */
  static boolean enabled() {
    return RECORDER != null;
  }

  /** Bits per array in the packed high-water marks; a count above the field's maximum is not trimmed. */
  private static final int BITS = 21;
  private static final long MASK = (1L << BITS) - 1;

  /**
   * Trims the arrays of {@code suspended}'s captured stack to the most they have held.
   *
   * @param marks the high-water marks this returned for the same continuation's last trim; 0 at first
   * @return the marks, now including what the stack holds
   */
  static long trim(Continuation suspended, long marks) {
    if (RECORDER == null) {
      return marks;
    }
    Stack stack = (StackRecorder) RECORDER.get(suspended);
    int p = 0;
    for (VarHandle top : PRIMITIVE_TOPS) {
      p += (int) top.get(stack);
    }
    p = Math.max(p, (int) (marks & MASK));
    int o = Math.max((int) OTOP.get(stack), (int) ((marks >>> BITS) & MASK));
    int r = Math.max((int) RTOP.get(stack), (int) ((marks >>> (2 * BITS)) & MASK));
    if (p > MASK || o > MASK || r > MASK) {
      return marks;
    }
    long[] primitives = (long[]) PSTACK.get(stack);
    if (primitives.length > p) {
      PSTACK.set(stack, java.util.Arrays.copyOf(primitives, p));
    }
    Object[] objects = (Object[]) OSTACK.get(stack);
    if (objects.length > o) {
      OSTACK.set(stack, java.util.Arrays.copyOf(objects, o));
    }
    Object[] references = (Object[]) RSTACK.get(stack);
    if (references.length > r) {
      RSTACK.set(stack, java.util.Arrays.copyOf(references, r));
    }
    return p | ((long) o << BITS) | ((long) r << (2 * BITS));
  }
}
