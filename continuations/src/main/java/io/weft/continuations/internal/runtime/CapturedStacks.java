package io.weft.continuations.internal.runtime;

import io.weft.continuations.NotInstrumentedError;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.apache.commons.javaflow.core.Stack;

/**
 * Reads JavaFlow's captured stack: the top of its reference stack for the capture-time check
 * ({@link #topReference}), and trims the arrays of a suspended continuation's stack to what they
 * hold. JavaFlow's
 * {@code Stack} doubles an array that fills as a suspend captures the frames, so a session that
 * waits keeps up to twice the room its frames need: with a million sessions waiting, a few hundred
 * bytes each. The next capture along the same path pushes as many values as the last one, which
 * fit the trimmed arrays exactly; a deeper one grows them again, as JavaFlow always does.
 *
 * <p>One reference more than the stack holds: after a capture, {@code StackRecorder.execute} pops
 * the bottom frame's own reference (the {@code Runnable} it ran), so a suspended stack holds one
 * reference less than the capture pushed. Trimmed to what it holds, the reference array was
 * regrown (doubled and copied) by the bottom frame at every capture, and copied again by the trim
 * after it: the largest allocation site of a busy simulation.
 *
 * <p>JavaFlow has no API for this: the fields are read through private lookups, which the class
 * path grants (JavaFlow's jars are not named modules there). Where they are not granted, or the
 * fields are not the ones of the pinned version, trimming is off and a rewrite made in this JVM
 * checks at the resume instead of at the capture. That choice is made where a class is rewritten,
 * not where it runs: its {@code Rewritten} mark records it, and a task class rewritten ahead with
 * capture-time checks is refused on a runtime that cannot read these fields. Each
 * handle is a static final field of its own: the JIT folds only such a handle into a plain field
 * access (one read from an array went through the generic invoker at every trim).
 */
final class CapturedStacks {
  private static final boolean ENABLED;
  private static final VarHandle PSTACK;
  private static final VarHandle OSTACK;
  private static final VarHandle RSTACK;
  private static final VarHandle DTOP;
  private static final VarHandle FTOP;
  private static final VarHandle LTOP;
  private static final VarHandle ITOP;
  private static final VarHandle OTOP;
  private static final VarHandle RTOP;

  static {
    boolean found = false;
    VarHandle pstack = null;
    VarHandle ostack = null;
    VarHandle rstack = null;
    VarHandle dtop = null;
    VarHandle ftop = null;
    VarHandle ltop = null;
    VarHandle itop = null;
    VarHandle otop = null;
    VarHandle rtop = null;
    try {
      MethodHandles.Lookup s = MethodHandles.privateLookupIn(Stack.class, MethodHandles.lookup());
      pstack = s.findVarHandle(Stack.class, "pstack", long[].class);
      ostack = s.findVarHandle(Stack.class, "ostack", Object[].class);
      rstack = s.findVarHandle(Stack.class, "rstack", Object[].class);
      dtop = s.findVarHandle(Stack.class, "dTop", int.class);
      ftop = s.findVarHandle(Stack.class, "fTop", int.class);
      ltop = s.findVarHandle(Stack.class, "lTop", int.class);
      itop = s.findVarHandle(Stack.class, "iTop", int.class);
      otop = s.findVarHandle(Stack.class, "oTop", int.class);
      rtop = s.findVarHandle(Stack.class, "rTop", int.class);
      found = true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      found = false;
    }
    ENABLED = found;
    PSTACK = pstack;
    OSTACK = ostack;
    RSTACK = rstack;
    DTOP = dtop;
    FTOP = ftop;
    LTOP = ltop;
    ITOP = itop;
    OTOP = otop;
    RTOP = rtop;
  }

  private CapturedStacks() {}

  /** True when the fields were found: {@link #trim} does something. */
  static boolean enabled() {
    return ENABLED;
  }

  /**
   * The reference on top of {@code stack}'s reference stack, null if it is empty: while a frame
   * captures itself right after its call returned, the {@code this} the callee pushed when it
   * captured itself, which is the reference the frame's own restore code will pop as the object to
   * call again (see {@code ResumeChecks}).
   *
   * @throws NotInstrumentedError if the fields were not found ({@link #enabled} is false): a class
   *     rewritten with the check at the capture cannot run its check without them. An error, so
   *     that no {@code catch (Exception)} of the capturing frame can take it for its own failure;
   *     {@code alreadyRewritten()} refuses such a task class before any session starts
   */
  static Object topReference(Stack stack) {
    if (!ENABLED) {
      throw new NotInstrumentedError(null, null, "the capture-time check cannot read JavaFlow's reference stack"
          + " (org.apache.commons.javaflow.core.Stack's fields are not open to Weft, or not those of 2.7.8)."
          + " Fix: start the JVM with --add-opens"
          + " net.tascalate.javaflow.api/org.apache.commons.javaflow.core=ALL-UNNAMED, or rewrite the classes"
          + " on this runtime (they then check at the resume)");
    }
    int top = (int) RTOP.get(stack);
    return top == 0 ? null : ((Object[]) RSTACK.get(stack))[top - 1];
  }

  /**
   * Trims the arrays of the suspended {@code stack} to what they hold, the reference array
   * to one more (see the class javadoc).
   *
   * @return how many of the three arrays were copied: 0 once a wait at the same place trimmed them
   */
  static int trim(Stack stack) {
    if (!ENABLED) {
      return 0;
    }
    int copied = 0;
    int p = (int) DTOP.get(stack) + (int) FTOP.get(stack) + (int) LTOP.get(stack) + (int) ITOP.get(stack);
    long[] primitives = (long[]) PSTACK.get(stack);
    if (primitives.length > p) {
      PSTACK.set(stack, java.util.Arrays.copyOf(primitives, p));
      copied++;
    }
    int o = (int) OTOP.get(stack);
    Object[] objects = (Object[]) OSTACK.get(stack);
    if (objects.length > o) {
      OSTACK.set(stack, java.util.Arrays.copyOf(objects, o));
      copied++;
    }
    int r = (int) RTOP.get(stack) + 1;
    Object[] references = (Object[]) RSTACK.get(stack);
    if (references.length > r) {
      RSTACK.set(stack, java.util.Arrays.copyOf(references, r));
      copied++;
    }
    return copied;
  }
}
