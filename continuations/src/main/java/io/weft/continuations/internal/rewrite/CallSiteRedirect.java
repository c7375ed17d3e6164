package io.weft.continuations.internal.rewrite;

import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * One rule of the call-site redirect pass: in every class the rewriter changes, a call to
 * {@code from} becomes a static call to {@code to}. For a static {@code from}, {@code to} takes
 * the same arguments; for an instance method, it takes the receiver first, then the arguments
 * (so {@code ThreadLocal.get()Object} becomes {@code to(ThreadLocal)Object}). Both return the
 * same type.
 *
 * <p>An instance rule also takes a call whose instruction names a subclass of {@code from}'s
 * owner (a {@code static final InheritableThreadLocal} read through {@code get()}), as long as
 * the subclass does not declare the method itself. Constructors and class initializers are never
 * redirected: replace the methods called on the object instead.
 *
 * <p>{@code to} must live in one of Weft's own packages (it is loaded from the parent, unchanged,
 * like the rest of the runtime). If it is marked {@code @continuable} (and rewritten by JavaFlow's
 * build step, as {@code SessionLock.lock} is), a redirected call is a wait like any other: the
 * analysis sees the redirected call, marks its callers suspendable and refuses the chains that
 * cannot suspend through it.
 *
 * @param from the method whose call sites are redirected
 * @param isStatic true if {@code from} is a static method
 * @param to the static method called instead
 */
public record CallSiteRedirect(MethodRef from, boolean isStatic, MethodRef to) {
  public CallSiteRedirect {
    if (from.isInitializer()) {
      throw new IllegalArgumentException("a constructor or initializer is never redirected: " + from);
    }
    Type expected = isStatic ? from.type() : withReceiver(from);
    if (!expected.equals(to.type())) {
      throw new IllegalArgumentException(to + " cannot replace " + from + ": it must be static "
          + expected.getDescriptor());
    }
  }

  /** Redirects the static method {@code from} to {@code to}, with the same descriptor. */
  public static CallSiteRedirect ofStatic(MethodRef from, String toOwner, String toName) {
    return new CallSiteRedirect(from, true, MethodRef.of(toOwner, toName, from.type()));
  }

  /** Redirects the instance method {@code from} to a static {@code toOwner.toName(receiver, args...)}. */
  public static CallSiteRedirect ofInstance(MethodRef from, String toOwner, String toName) {
    return new CallSiteRedirect(from, false, MethodRef.of(toOwner, toName, withReceiver(from)));
  }

  /** True if a call instruction with {@code opcode} can be this rule's call. */
  boolean takes(int opcode) {
    return isStatic ? opcode == Opcodes.INVOKESTATIC
        : opcode == Opcodes.INVOKEVIRTUAL || opcode == Opcodes.INVOKEINTERFACE;
  }

  private static Type withReceiver(MethodRef m) {
    Type[] args = m.type().getArgumentTypes();
    Type[] withReceiver = new Type[args.length + 1];
    withReceiver[0] = Type.getObjectType(m.owner());
    System.arraycopy(args, 0, withReceiver, 1, args.length);
    return Type.getMethodType(m.type().getReturnType(), withReceiver);
  }
}
