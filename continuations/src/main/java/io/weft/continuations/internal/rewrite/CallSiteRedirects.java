package io.weft.continuations.internal.rewrite;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The call-site redirect pass: a list of {@link CallSiteRedirect} rules. The analysis records
 * the calls of the classes under the rewritten packages as they will be after the pass (so a
 * redirect to a suspending method makes its callers suspendable, and the classes with a
 * redirected call are defined by the rewriting loader), and the {@link ClassRewriter} applies it
 * to every class it changes. Immutable; one list may serve any number of rewriters.
 */
public final class CallSiteRedirects {
  /** No redirects. */
  public static final CallSiteRedirects NONE = new CallSiteRedirects(List.of());

  private final List<CallSiteRedirect> rules;
  private final Map<MethodRef, CallSiteRedirect> exact = new HashMap<>();

  public CallSiteRedirects(List<CallSiteRedirect> rules) {
    this.rules = List.copyOf(rules);
    for (CallSiteRedirect r : this.rules) {
      if (exact.putIfAbsent(r.from(), r) != null) {
        throw new IllegalArgumentException("two redirects for " + r.from());
      }
    }
  }

  public List<CallSiteRedirect> rules() {
    return rules;
  }

  /** These rules and {@code more}; a method may be redirected once. */
  public CallSiteRedirects with(List<CallSiteRedirect> more) {
    List<CallSiteRedirect> all = new ArrayList<>(rules);
    all.addAll(more);
    return new CallSiteRedirects(all);
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
    if (rules.isEmpty()) {
      return mv;
    }
    return new MethodVisitor(Opcodes.ASM9, mv) {
      @Override
      public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
        CallSiteRedirect r = find(opcode, MethodRef.of(owner, name, desc), declaring);
        if (r == null) {
          super.visitMethodInsn(opcode, owner, name, desc, itf);
        } else {
          super.visitMethodInsn(Opcodes.INVOKESTATIC, r.to().owner(), r.to().name(), r.to().desc(), false);
        }
      }
    };
  }
}
