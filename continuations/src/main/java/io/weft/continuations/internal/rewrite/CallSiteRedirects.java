package io.weft.continuations.internal.rewrite;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The call-site redirect pass: a list of {@link CallSiteRedirect} rules and of
 * {@link ConstructorArgument} rules. The analysis records
 * the calls of the classes under the rewritten packages as they will be after the pass (so a
 * redirect to a suspending method makes its callers suspendable, and the classes with a
 * redirected call are defined by the rewriting loader), and the {@link ClassRewriter} applies it
 * to every class it changes. Immutable; one list may serve any number of rewriters.
 */
public final class CallSiteRedirects {
  /** No redirects. */
  public static final CallSiteRedirects NONE = new CallSiteRedirects(List.of());

  private final List<CallSiteRedirect> rules;
  private final List<ConstructorArgument> constructors;
  private final Map<MethodRef, CallSiteRedirect> exact = new HashMap<>();
  private final Map<MethodRef, ConstructorArgument> exactConstructors = new HashMap<>();

  public CallSiteRedirects(List<CallSiteRedirect> rules) {
    this(rules, List.of());
  }

  /**
   * @param rules the method call redirects
   * @param constructors the constructor call redirects
   */
  public CallSiteRedirects(List<CallSiteRedirect> rules, List<ConstructorArgument> constructors) {
    this.rules = List.copyOf(rules);
    this.constructors = List.copyOf(constructors);
    for (CallSiteRedirect r : this.rules) {
      if (exact.putIfAbsent(r.from(), r) != null) {
        throw new IllegalArgumentException("two redirects for " + r.from());
      }
    }
    for (ConstructorArgument c : this.constructors) {
      if (exactConstructors.putIfAbsent(c.from(), c) != null) {
        throw new IllegalArgumentException("two redirects for " + c.from());
      }
    }
  }

  public List<CallSiteRedirect> rules() {
    return rules;
  }

  public List<ConstructorArgument> constructors() {
    return constructors;
  }

  /** True when the pass changes nothing. */
  public boolean isEmpty() {
    return rules.isEmpty() && constructors.isEmpty();
  }

  /** These rules and {@code more}; a method may be redirected once. */
  public CallSiteRedirects with(List<CallSiteRedirect> more) {
    List<CallSiteRedirect> all = new ArrayList<>(rules);
    all.addAll(more);
    return new CallSiteRedirects(all, constructors);
  }

  /** These rules and the constructor redirects {@code more}; a constructor may be redirected once. */
  public CallSiteRedirects withConstructors(List<ConstructorArgument> more) {
    List<ConstructorArgument> all = new ArrayList<>(constructors);
    all.addAll(more);
    return new CallSiteRedirects(rules, all);
  }

  /** The constructor rule for a call instruction, or null if the call stays as it is. */
  ConstructorArgument findConstructor(int opcode, MethodRef called) {
    return opcode == Opcodes.INVOKESPECIAL && !constructors.isEmpty() ? exactConstructors.get(called) : null;
  }

  /**
   * The rule for a call instruction, or null if the call stays as it is.
   *
   * @param declaring for a call as named in an instruction, the method it links to (declared in
   *     the class named, or inherited), or null if unknown
   */
  CallSiteRedirect find(int opcode, MethodRef called, Function<MethodRef, MethodRef> declaring) {
    if (rules.isEmpty() || called.isInitializer()) {
      return null;
    }
    CallSiteRedirect r = exact.get(called);
    if (r == null && opcode != Opcodes.INVOKESTATIC && opcode != Opcodes.INVOKESPECIAL) {
      MethodRef declared = declaring.apply(called);
      r = declared == null ? null : exact.get(declared);
    }
    return r != null && r.takes(opcode) ? r : null;
  }

  /** Wraps {@code mv} so that the redirected calls it is given go to their rules' targets. */
  MethodVisitor apply(MethodVisitor mv, Function<MethodRef, MethodRef> declaring) {
    if (isEmpty()) {
      return mv;
    }
    return new MethodVisitor(Opcodes.ASM9, mv) {
      /** Stack slots the supplied constructor arguments add at most (the class is written with its own maxima). */
      private int extraStack;

      @Override
      public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
        MethodRef called = MethodRef.of(owner, name, desc);
        ConstructorArgument c = findConstructor(opcode, called);
        if (c != null) {
          MethodRef s = c.supplier();
          super.visitMethodInsn(Opcodes.INVOKESTATIC, s.owner(), s.name(), s.desc(), false);
          super.visitMethodInsn(Opcodes.INVOKESPECIAL, owner, name, c.to().desc(), itf);
          extraStack = Math.max(extraStack, c.stackSize());
          return;
        }
        CallSiteRedirect r = find(opcode, called, declaring);
        if (r == null) {
          super.visitMethodInsn(opcode, owner, name, desc, itf);
        } else {
          super.visitMethodInsn(Opcodes.INVOKESTATIC, r.to().owner(), r.to().name(), r.to().desc(), false);
        }
      }

      @Override
      public void visitMaxs(int maxStack, int maxLocals) {
        super.visitMaxs(maxStack + extraStack, maxLocals);
      }
    };
  }
}
