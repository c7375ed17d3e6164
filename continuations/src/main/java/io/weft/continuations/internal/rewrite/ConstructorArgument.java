package io.weft.continuations.internal.rewrite;

import org.objectweb.asm.Type;

/**
 * A rule of the call-site redirect pass for constructor calls, which a {@link CallSiteRedirect}
 * cannot take: in every class the rewriter changes, a call of the constructor {@code from} becomes
 * a call of the constructor of the same class that takes one argument more, the value of the
 * static method {@code supplier} called just before it. So {@code new Random()} becomes
 * {@code new Random(SimulatedRandom.seed())}: the object is the one the code asked for, only its
 * missing argument is supplied. A subclass constructor's {@code super()} call is taken too.
 *
 * <p>{@code supplier} must live in one of Weft's own packages (loaded from the parent, unchanged)
 * and must not suspend: it runs between the {@code new} and the constructor call, where the
 * operand stack holds an object not yet made, which no continuation can capture.
 *
 * @param from the constructor whose calls are redirected
 * @param supplier a static method with no arguments that gives the added last argument
 */
public record ConstructorArgument(MethodRef from, MethodRef supplier) {
  public ConstructorArgument {
    if (!from.name().equals("<init>")) {
      throw new IllegalArgumentException("not a constructor: " + from);
    }
    Type given = supplier.type().getReturnType();
    if (supplier.type().getArgumentTypes().length != 0 || given.getSort() == Type.VOID) {
      throw new IllegalArgumentException(supplier + " cannot supply an argument: it must take none and return one");
    }
  }

  /** The constructor called instead: {@code from}'s arguments, then the supplied one. */
  public MethodRef to() {
    Type[] args = from.type().getArgumentTypes();
    Type[] more = new Type[args.length + 1];
    System.arraycopy(args, 0, more, 0, args.length);
    more[args.length] = supplier.type().getReturnType();
    return MethodRef.of(from.owner(), "<init>", Type.getMethodType(Type.VOID_TYPE, more));
  }

  /** The operand stack slots the supplied argument takes: 2 for a long or a double. */
  int stackSize() {
    return supplier.type().getReturnType().getSize();
  }
}
