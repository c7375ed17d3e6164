package io.weft.continuations.internal.rewrite;

import java.util.ArrayList;
import java.util.List;

/**
 * What a rewrite adds to the analysis and the class rewriting, beyond making methods suspend:
 * the {@link CallSiteRedirects} applied to every class it changes, and the {@link SessionRule}s
 * that refuse a task at load time. The one place where passes plug in: give the rules to
 * {@link SuspendableAnalysis} (and so to {@link ClassRewriter#over}); the loader, the agent and
 * the {@code Rewrite} tool all use {@link #DEFAULT}. Immutable.
 *
 * @param redirects the call-site redirect pass
 * @param rules the load-time checks, asked in this order after the built-in suspend-path rule
 */
public record RewriteRules(CallSiteRedirects redirects, List<SessionRule> rules) {
  private static final String THREAD_LOCAL = "java/lang/ThreadLocal";
  private static final String THREAD_LOCALS = "io/weft/continuations/internal/runtime/ThreadLocals";

  /**
   * Thread-locals follow their session: {@code get}, {@code set} and {@code remove} of
   * {@code ThreadLocal} (and of its subclasses that do not override them) go to the runtime's
   * {@code ThreadLocals}, which carries the values a session uses across its waits.
   */
  public static final List<CallSiteRedirect> THREAD_LOCALS_PER_SESSION = List.of(
      CallSiteRedirect.ofInstance(MethodRef.of(THREAD_LOCAL, "get", "()Ljava/lang/Object;"), THREAD_LOCALS, "get"),
      CallSiteRedirect.ofInstance(MethodRef.of(THREAD_LOCAL, "set", "(Ljava/lang/Object;)V"), THREAD_LOCALS, "set"),
      CallSiteRedirect.ofInstance(MethodRef.of(THREAD_LOCAL, "remove", "()V"), THREAD_LOCALS, "remove"));

  /** What every way of rewriting applies: the suspend-path checks, and thread-locals per session. */
  public static final RewriteRules DEFAULT =
      new RewriteRules(new CallSiteRedirects(THREAD_LOCALS_PER_SESSION), List.of());

  public RewriteRules {
    rules = List.copyOf(rules);
  }

  /** These rules, with {@code more} redirects. */
  public RewriteRules withRedirects(List<CallSiteRedirect> more) {
    return new RewriteRules(redirects.with(more), rules);
  }

  /** These rules, with {@code more} constructor redirects. */
  public RewriteRules withConstructorArguments(List<ConstructorArgument> more) {
    return new RewriteRules(redirects.withConstructors(more), rules);
  }

  /** These rules, with {@code more} load-time checks after them. */
  public RewriteRules withRules(List<SessionRule> more) {
    List<SessionRule> all = new ArrayList<>(rules);
    all.addAll(more);
    return new RewriteRules(redirects, all);
  }

  /** The checks the walk asks: the built-in suspend-path rule first. */
  List<SessionRule> walkRules() {
    List<SessionRule> all = new ArrayList<>();
    all.add(SuspendPathRules.INSTANCE);
    all.addAll(rules);
    return all;
  }
}
