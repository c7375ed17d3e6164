package io.weft.transport.mina.outside;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.javaflow.core.Stack;

/**
 * Reads a suspended continuation's captured stack (JavaFlow's reference stack: one entry per
 * rewritten instance frame, its {@code this}, innermost first; a static frame such as
 * {@code Suspend.await} pushes none), for a test that counts the frames a suspend captured. Outside
 * the instrumented packages: plain code, called by a rewritten task, and read by the test.
 */
public final class CapturedFrames {
  private static final VarHandle RSTACK;
  private static final VarHandle RTOP;

  static {
    try {
      MethodHandles.Lookup s = MethodHandles.privateLookupIn(Stack.class, MethodHandles.lookup());
      RSTACK = s.findVarHandle(Stack.class, "rstack", Object[].class);
      RTOP = s.findVarHandle(Stack.class, "rTop", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The suspended session's recorder, kept by that session before its wait. */
  public static volatile Stack held;
  /** The I/O thread the suspended session ran on when it suspended. */
  public static volatile Thread heldOn;
  /** What the watching session saw: the classes of the held stack's references, innermost first. */
  public static volatile List<String> seen;

  private CapturedFrames() {}

  /** Records the classes of {@link #held}'s captured references, innermost first. */
  public static void look() {
    Stack stack = held;
    int top = (int) RTOP.get(stack);
    Object[] references = (Object[]) RSTACK.get(stack);
    List<String> classes = new ArrayList<>();
    for (int i = 0; i < top; i++) {
      classes.add(references[i] == null ? "null" : references[i].getClass().getName());
    }
    seen = List.copyOf(classes);
  }
}
