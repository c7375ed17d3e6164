package io.weft.continuations.internal.rewrite;

import io.weft.continuations.rewrite.spi.CallRedirects;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A host's {@link CallRedirects} as the rewriter's own rules: its calls as
 * {@link CallSiteRedirect}s, its constructors as {@link ConstructorArgument}s, and a
 * {@link SessionRule} that refuses a class rewritten before (marked, so defined as it is) that
 * makes one of the redirected calls. That class's frames were rewritten without knowing where the
 * calls go (a sleep redirected to a wait suspends), so the redirects cannot be added afterwards.
 */
public final class RedirectRules {
  private RedirectRules() {}

  /**
   * Builds the rules of {@code redirects}, so that what does not fit is refused when they are made.
   *
   * @throws IllegalArgumentException if a target cannot replace its call
   */
  public static void check(CallRedirects redirects) {
    of(redirects);
  }

  /** {@link RewriteRules#DEFAULT} with {@code redirects} and their refusal of classes rewritten before. */
  public static RewriteRules of(CallRedirects redirects) {
    List<CallSiteRedirect> calls = new ArrayList<>();
    for (CallRedirects.Call c : redirects.calls()) {
      MethodRef from = MethodRef.of(c.owner(), c.name(), c.descriptor());
      calls.add(c.isStatic() ? CallSiteRedirect.ofStatic(from, c.toOwner(), c.toName())
          : CallSiteRedirect.ofInstance(from, c.toOwner(), c.toName()));
    }
    List<ConstructorArgument> constructors = new ArrayList<>();
    for (CallRedirects.Constructor c : redirects.constructors()) {
      constructors.add(new ConstructorArgument(MethodRef.of(c.owner(), "<init>", c.descriptor()),
          MethodRef.of(c.supplierOwner(), c.supplierName(), c.supplierDescriptor())));
    }
    // The JDK call each target stands for, as a refusal names it.
    Map<MethodRef, String> replaced = new HashMap<>();
    for (CallSiteRedirect r : calls) {
      replaced.put(r.to(), simpleName(r.from().owner()) + "." + r.from().name());
    }
    for (ConstructorArgument c : constructors) {
      replaced.put(c.supplier(), "new " + simpleName(c.from().owner()) + "()");
    }
    return RewriteRules.DEFAULT.withRedirects(calls).withConstructorArguments(constructors)
        .withRules(List.of(rewrittenBefore(redirects.host(), replaced)));
  }

  private static String simpleName(String internalName) {
    return internalName.substring(internalName.lastIndexOf('/') + 1);
  }

  private static SessionRule rewrittenBefore(String host, Map<MethodRef, String> replaced) {
    return new SessionRule() {
      @Override
      public void reached(Reach at) {
        if (!at.rewrittenBefore()) {
          return;
        }
        for (CallSite call : at.calls()) {
          String what = replaced.get(call.target());
          if (what != null) {
            at.problem(at.method(), "was rewritten before " + host + " loaded it (it carries Weft's Rewritten"
                + " mark, as the Rewrite tool's output does), without " + host + "'s redirects: its " + what
                + " (line " + call.line() + ") would run as compiled instead of going to "
                + simpleName(call.target().owner()) + "." + call.target().name(), at.chainTo(call),
                "Give " + host + " the classes as compiled, not the Rewrite tool's output (under the -javaagent"
                + " nothing is needed: " + host + "'s loader rewrites its classes from their compiled bytes)");
            return;
          }
        }
      }
    };
  }
}
